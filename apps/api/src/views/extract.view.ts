import type { Execution } from '@botfleet/db';
import type { ExtractView } from '../contracts/execution-results.contract';
import type { LatestExtractView } from '../contracts/executions.contract';

/** An execution's extracted data; the caller has checked it completed with data. */
export function toExtractView(execution: Pick<Execution, 'extractedData'>): ExtractView {
  return { data: execution.extractedData };
}

/** A bot's latest extracted data, with the execution that produced it and when it completed. */
export function toLatestExtractView(
  execution: Pick<Execution, 'id' | 'extractedData'> & { completedAt: Date },
): LatestExtractView {
  return { executionId: execution.id, completedAt: execution.completedAt.getTime(), data: execution.extractedData };
}
