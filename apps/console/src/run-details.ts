import {
  getExtract,
  getFailure,
  listArtifacts,
  listExecutionDeliveries,
  type Artifact,
  type Client,
  type Delivery,
  type Execution,
  type Failure,
  type StepOutput,
} from '@botfleet/sdk';

/**
 * What the run page reads besides the run's event stream, which carries the run, its steps and
 * its logs: deliveries and artifacts, and the results once the run has ended.
 */
export interface RunResults {
  deliveries: Delivery[];
  artifacts: Artifact[];
  /** Present once the run completed with data. */
  extract: { data: unknown } | null;
  failure: Failure | null;
}

export const isInFlight = (execution: Execution) => execution.status === 'pending' || execution.status === 'running';

/** A webhook delivery is still being tried: the one thing the page reads again after the run's end. */
export const isDelivering = (results: RunResults | null) =>
  results?.deliveries.some((delivery) => delivery.status === 'pending') ?? false;

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

/**
 * Deliveries and artifacts, read in parallel; the extract or the failure too when `ended` gives
 * the run as it ended (with its steps).
 */
export async function loadRunResults(
  client: Client,
  executionId: string,
  ended: { execution: Execution; steps: StepOutput[] } | null,
): Promise<RunResults> {
  const path = { executionId };
  const run = ended?.execution;
  const [deliveries, artifacts, extract, failure] = await Promise.all([
    listExecutionDeliveries({ client, path, throwOnError: true }),
    listArtifacts({ client, path, throwOnError: true }),
    run && ended && hasData(run, ended.steps)
      ? getExtract({ client, path, throwOnError: true }).then((r) => r.data)
      : null,
    run?.status === 'failed' ? getFailure({ client, path, throwOnError: true }).then((r) => r.data) : null,
  ]);
  return { deliveries: deliveries.data.data, artifacts: artifacts.data.data, extract, failure };
}
