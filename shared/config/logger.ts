import { Logger } from '@aws-lambda-powertools/logger';
import { lazySingleton } from './lazy';

/**
 * One structured logger for every function. Level and service name come from the standard
 * POWERTOOLS_* variables, so the stack and the local server tune it without code. Request bodies
 * are never logged: they can carry customer identities. Built on first use, not at module load.
 */
export const logger: Logger = lazySingleton(() => new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'analytics-api' }));
