import type { Execution } from '@botfleet/db';

/** An execution's extracted data; the caller has checked it completed with data. */
export function toExtractView(execution: Pick<Execution, 'extractedData'>): { data: unknown } {
  return { data: execution.extractedData };
}

/** A bot's latest extracted data, with the execution that produced it and when it completed. */
export function toLatestExtractView(execution: Pick<Execution, 'id' | 'extractedData'> & { completedAt: Date }): {
  executionId: string;
  completedAt: number;
  data: unknown;
} {
  return { executionId: execution.id, completedAt: execution.completedAt.getTime(), data: execution.extractedData };
}
