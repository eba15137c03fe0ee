import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mintApiKey } from '../../shared/auth/api-key-service';
import { SCOPES } from '../../shared/auth/scopes';
import { listApiKeys, revokeApiKey } from '../../shared/store/api-key-repository';
import { documentClient, tableName } from '../../shared/store/dynamo-client';
import type { SeedStep } from './demo-seed';

/**
 * Where the store records its first start: begun (with the clock the demo data is generated
 * for) and, once the key has been printed, completed. A local-only item; no deployed table has it.
 */
const MARKER_KEY = { PK: 'LOCAL#FIRST_START', SK: 'STATE' } as const;
const DEMO_KEY_NAME = 'Demo key';

interface FirstStartState {
  clock: string;
  completedAt?: string;
}

/**
 * Makes a store's first start all-or-nothing. The first start stores the demo data step by step,
 * mints a key with every scope, prints it, and only then marks itself complete. A start that
 * finds the mark missing (the first one was interrupted: Ctrl-C, a crash, a full disk) runs every
 * step again with the original clock, revokes any demo key the interrupted run minted (it may
 * have been printed, or not), mints a new one and says so: so a store ends with its demo data in
 * full and exactly one working demo key that was shown.
 */
export async function completeFirstStart(options: {
  pixelId: string;
  steps: readonly SeedStep[];
  /** Whether this start created the table: an older store without the mark but with a demo key is complete. */
  tableCreated: boolean;
  log: (line: string) => void;
}): Promise<'done-before' | 'completed' | 'redone'> {
  const { pixelId, steps, log } = options;
  const state = await readState();
  if (state?.completedAt) return 'done-before';
  const demoKeys = (await listApiKeys(pixelId)).filter((key) => key.name === DEMO_KEY_NAME && !key.revokedAt);
  if (!state && !options.tableCreated && demoKeys.length > 0) {
    // A store from before the mark existed, whose first start finished: only record that.
    await writeState({ clock: new Date().toISOString(), completedAt: new Date().toISOString() });
    return 'done-before';
  }

  // A table without the mark (created by a keys or import command) has simply not had its first start.
  const redo = state !== undefined;
  const clock = state ? new Date(state.clock) : new Date();
  if (!state) await writeState({ clock: clock.toISOString() });
  const contents = `a demo pixel ${pixelId} with ${steps.map((step) => step.description).join(', ')} and a key with every scope`;
  log(
    redo
      ? `The first start of this data directory did not finish; redoing it: ${contents}...`
      : `First start: creating ${contents}...`,
  );
  for (const step of steps) await step.run(pixelId, clock);
  for (const key of demoKeys) await revokeApiKey(key.apiKeyPk, new Date());
  const { apiKey } = await mintApiKey({ pixelId, scopes: [...SCOPES], name: DEMO_KEY_NAME });

  log(`First start complete. The key is shown only this once${redo && demoKeys.length > 0 ? ' (the unfinished start\'s key is revoked)' : ''}:`);
  log(`  x-pixel-id: ${pixelId}`);
  log(`  x-api-key:  ${apiKey}`);
  await writeState({ clock: clock.toISOString(), completedAt: new Date().toISOString() });
  return redo ? 'redone' : 'completed';
}

async function readState(): Promise<FirstStartState | undefined> {
  const { Item } = await documentClient.send(new GetCommand({ TableName: tableName(), Key: MARKER_KEY, ConsistentRead: true }));
  return Item ? { clock: Item.clock as string, ...(Item.completedAt ? { completedAt: Item.completedAt as string } : {}) } : undefined;
}

async function writeState(state: FirstStartState): Promise<void> {
  await documentClient.send(new PutCommand({ TableName: tableName(), Item: { ...MARKER_KEY, ...state } }));
}
