import {
  getExecution,
  getExtract,
  getFailure,
  listExecutionDeliveries,
  listLogs,
  listStepOutputs,
  type Client,
  type Delivery,
  type Execution,
  type Failure,
  type LogEntry,
  type StepOutput,
} from '@botfleet/sdk';

export interface RunDetails {
  execution: Execution;
  steps: StepOutput[];
  logs: LogEntry[];
  deliveries: Delivery[];
  /** Present once the run completed with data. */
  extract: { data: unknown } | null;
  failure: Failure | null;
}

export const isInFlight = (execution: Execution) => execution.status === 'pending' || execution.status === 'running';

/** Whether the page should poll again: the run is going, or a webhook delivery is still being tried. */
export const isLive = (details: RunDetails) =>
  isInFlight(details.execution) || details.deliveries.some((delivery) => delivery.status === 'pending');

/**
 * Whether GET .../extract has something to answer. It answers 404 for a run that completed
 * without data, which the console does not ask for: the API marks runs that completed with data
 * with `dataChanged`, and an extract step that completed means data as well.
 */
export function hasData(execution: Execution, steps: StepOutput[]): boolean {
  if (execution.status !== 'completed') return false;
  if (execution.dataChanged !== undefined && execution.dataChanged !== null) return true;
  return steps.some((step) => step.action === 'extract' && step.status === 'completed');
}

/** Everything the run page shows, read in parallel; the results only once the run has ended. */
export async function loadRunDetails(client: Client, executionId: string): Promise<RunDetails> {
  const path = { executionId };
  const [execution, steps, logs, deliveries] = await Promise.all([
    getExecution({ client, path, throwOnError: true }),
    listStepOutputs({ client, path, throwOnError: true }),
    listLogs({ client, path, throwOnError: true }),
    listExecutionDeliveries({ client, path, throwOnError: true }),
  ]);
  const run = execution.data;
  const [extract, failure] = await Promise.all([
    hasData(run, steps.data.data) ? getExtract({ client, path, throwOnError: true }).then((r) => r.data) : null,
    run.status === 'failed' ? getFailure({ client, path, throwOnError: true }).then((r) => r.data) : null,
  ]);
  return {
    execution: run,
    steps: steps.data.data,
    logs: logs.data.data,
    deliveries: deliveries.data.data,
    extract,
    failure,
  };
}
