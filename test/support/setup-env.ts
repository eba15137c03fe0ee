import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Tests never reach AWS: fixed dummy credentials and region, and quiet logs.
process.env.AWS_ACCESS_KEY_ID ??= 'test';
process.env.AWS_SECRET_ACCESS_KEY ??= 'test';
process.env.AWS_REGION ??= 'us-east-1';
process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
process.env.TABLE_NAME ??= 'test-table';
process.env.EVENT_BUS_NAME ??= 'test-bus';
// Each test file's analytics store is a fresh directory of its own (the local layout).
if (!process.env.ANALYTICS_BUCKET) process.env.ANALYTICS_DIR ??= mkdtempSync(join(tmpdir(), 'analytics-test-'));
