import { resolve } from 'node:path';
import { LOCAL_CREDENTIALS } from './dynamodb';

/**
 * The local runtime's settings, all from environment variables with laptop-friendly defaults.
 * The keys and import CLIs read the same ones, so they find the store `npm start` uses.
 */
export function localConfig(env: NodeJS.ProcessEnv = process.env) {
  const dataDir = resolve(env.DATA_DIR ?? '.data');
  return {
    host: '127.0.0.1',
    port: Number(env.PORT ?? 3000),
    dynamoPort: Number(env.DYNAMODB_PORT ?? 8000),
    dataDir,
    dynamoPath: resolve(dataDir, 'dynamodb'),
    analyticsDir: resolve(dataDir, 'analytics'),
    eventsFile: resolve(dataDir, 'events.ndjson'),
    tableName: env.TABLE_NAME ?? 'merchant-analytics-local',
    eventBusName: env.EVENT_BUS_NAME ?? 'merchant-analytics-local',
    region: env.AWS_REGION ?? 'us-east-1',
  };
}
export type LocalConfig = ReturnType<typeof localConfig>;

/**
 * Points this process's AWS SDK clients at the local stand-ins through the standard variables,
 * the only seam the handlers have. Must run before any handler module is imported.
 */
export function useLocalServices(config: LocalConfig, endpoints: { dynamodb: string; eventbridge?: string }): void {
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
    ...(endpoints.eventbridge ? { AWS_ENDPOINT_URL_EVENTBRIDGE: endpoints.eventbridge } : {}),
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_REGION: config.region,
    TABLE_NAME: config.tableName,
    EVENT_BUS_NAME: config.eventBusName,
    ANALYTICS_DIR: config.analyticsDir,
    POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'WARN',
    // Readable, indented log lines in a terminal; EMF metric documents only when asked for.
    POWERTOOLS_DEV: process.env.POWERTOOLS_DEV ?? 'true',
    POWERTOOLS_METRICS_DISABLED: process.env.POWERTOOLS_METRICS_DISABLED ?? 'true',
  });
  // The local store is the directory: a bucket named in the shell must not take its place.
  delete process.env.ANALYTICS_BUCKET;
  delete process.env.AWS_PROFILE;
  delete process.env.AWS_SESSION_TOKEN;
}
