/**
 * Functions that are not HTTP routes: the pipeline's consumers. The stack builds one function per
 * row, beside the route table's; locally their work is done by the drain inside `npm start`.
 */
export interface WorkerDefinition {
  /** The handler module, relative to the project root; it exports `handler`. */
  handler: string;
  summary: string;
}

export const workers = {
  projectPending: {
    handler: 'functions/workers/project-pending.ts',
    summary: 'Project accepted events, orders and read models, and publish outboxes, from the table stream',
  },
} as const satisfies Record<string, WorkerDefinition>;

export type WorkerId = keyof typeof workers;
