import { SCOPES } from '../../shared/auth/scopes';
import { mintApiKey } from '../../shared/auth/api-key-service';

export const DEMO_PIXEL_ID = 'px_demo';

/** First start only: a demo pixel and a key with every scope, so a newcomer can call the API at once. */
export async function seedDemo(): Promise<{ pixelId: string; apiKey: string; apiKeyPk: string }> {
  const { apiKey, record } = await mintApiKey({ pixelId: DEMO_PIXEL_ID, scopes: [...SCOPES], name: 'Demo key' });
  return { pixelId: DEMO_PIXEL_ID, apiKey, apiKeyPk: record.apiKeyPk };
}
