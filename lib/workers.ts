/**
 * Functions that are not HTTP routes: the pipeline's consumers. The stack builds one function per
 * row, beside the route table's; locally their work is done by the drain inside `npm start`.
 */
export interface WorkerDefinition {
  /** The handler module, relative to the project root; it exports `handler`. */
  handler: string;
  summary: string;
  /** It writes the analytics store (Parquet files through DuckDB): the stack grants the bucket and ships the engine. */
  analytics?: 'write';
}

export const workers = {
  projectPending: {
    handler: 'functions/workers/project-pending.ts',
    summary: 'Project accepted events, orders and read models, and publish outboxes, from the table stream',
    analytics: 'write',
  },
} as const satisfies Record<string, WorkerDefinition>;

export type WorkerId = keyof typeof workers;
