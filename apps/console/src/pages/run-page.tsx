import { cancelExecution, followExecutionEvents, rerunExecution } from '@botfleet/sdk';
import { useState } from 'preact/hooks';
import { ArtifactsList } from '../components/artifacts-list';
import { DataView } from '../components/data-view';
import { DeliveriesList } from '../components/deliveries-list';
import { ErrorAlert } from '../components/error-alert';
import { FailureView } from '../components/failure-view';
import { JsonTree } from '../components/json-tree';
import { Link } from '../components/link';
import { LogsView } from '../components/logs-view';
import { StatusBadge } from '../components/status-badge';
import { StepOutputs } from '../components/step-outputs';
import { StreamNotice } from '../components/stream-notice';
import { useSession } from '../console-session';
import { formatDuration, formatTime } from '../format';
import { applyRunEvent, NO_RUN, type LiveRun } from '../live-run';
import { hrefOf, navigate } from '../routes';
import { isDelivering, isInFlight, loadRunResults } from '../run-details';
import { useAction } from '../use-action';
import { useEventStream } from '../use-event-stream';
import { useLoad } from '../use-load';

/** How often deliveries are read again while one is still being tried: the stream does not carry them. */
const DELIVERY_POLL_MS = 1000;

/**
 * One run, followed live from its event stream (status, each step as it finishes, logs, end)
 * without polling; deliveries, artifacts and the results are read when it starts and again at
 * its end.
 */
export function RunPage({ executionId }: { executionId: string }) {
  const { client, canWrite } = useSession();
  const [run, setRun] = useState<LiveRun>(NO_RUN);
  const stream = useEventStream(
    (signal) => followExecutionEvents(client, executionId, { signal }),
    (event) => setRun((old) => applyRunEvent(old, event)),
    [executionId],
  );
  // Read once while the run goes and once when it has ended; a run that had ended before the
  // page opened is replayed by the stream up to its `end` first, so it is read once.
  const phase = run.ended ? 'ended' : run.execution && isInFlight(run.execution) ? 'live' : 'waiting';
  const results = useLoad(
    async () =>
      phase === 'waiting'
        ? null
        : loadRunResults(
            client,
            executionId,
            phase === 'ended' && run.execution ? { execution: run.execution, steps: run.steps } : null,
          ),
    [executionId, phase],
    { pollMs: DELIVERY_POLL_MS, keepPolling: (loaded) => phase === 'ended' && isDelivering(loaded) },
  );
  const action = useAction();

  const { execution, steps, logs } = run;
  if (!execution) {
    return stream.error ? <ErrorAlert error={stream.error} /> : <p aria-live="polite">Loading the run…</p>;
  }
  const { deliveries = [], artifacts = [], extract = null, failure = null } = results.data ?? {};

  return (
    <>
      <h1>
        Run <code>{execution.id}</code>
      </h1>
      <p class="run-status" aria-live="polite">
        <StatusBadge status={execution.status} />
        {isInFlight(execution) && !stream.error && <span class="hint"> updating live</span>}
      </p>
      <StreamNotice error={stream.error} what="the run" />
      <dl class="facts">
        <div>
          <dt>Bot</dt>
          <dd>
            <Link href={hrefOf({ page: 'bot', botId: execution.botId })}>{execution.botName}</Link>
          </dd>
        </div>
        <div>
          <dt>Bot version</dt>
          <dd>
            <Link href={hrefOf({ page: 'bot-version', botId: execution.botId, version: execution.botVersion })}>
              Version {execution.botVersion}
            </Link>
          </dd>
        </div>
        <div>
          <dt>Trigger</dt>
          <dd>
            {execution.trigger}
            {execution.rerunOf && (
              <>
                {' of '}
                <Link href={hrefOf({ page: 'run', executionId: execution.rerunOf })}>
                  <code>{execution.rerunOf}</code>
                </Link>
              </>
            )}
          </dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>{formatTime(execution.createdAt)}</dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>{formatTime(execution.startedAt)}</dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>{formatDuration(execution.duration)}</dd>
        </div>
        <div>
          <dt>Attempt</dt>
          <dd>{execution.attempt}</dd>
        </div>
      </dl>
      {canWrite && (
        <div class="actions">
          {isInFlight(execution) ? (
            <button
              type="button"
              class="danger"
              disabled={action.busy}
              onClick={() =>
                action.run(async () => {
                  // The stream brings the cancelled status.
                  await cancelExecution({ client, path: { executionId }, throwOnError: true });
                })
              }
            >
              Cancel run
            </button>
          ) : (
            <button
              type="button"
              disabled={action.busy}
              onClick={() =>
                action.run(async () => {
                  // Same params as this run: the API copies them when none are given.
                  const { data } = await rerunExecution({
                    client,
                    path: { executionId },
                    body: {},
                    throwOnError: true,
                  });
                  navigate(hrefOf({ page: 'run', executionId: data.executionId }));
                })
              }
            >
              Rerun
            </button>
          )}
        </div>
      )}
      <ErrorAlert error={action.error} />
      <ErrorAlert error={results.error} />
      <div class="sections">
        <section aria-labelledby="params-heading">
          <h2 id="params-heading">Parameters</h2>
          {Object.keys(execution.params).length === 0 ? (
            <p>None.</p>
          ) : (
            <JsonTree value={execution.params} label="params" />
          )}
        </section>
        {failure && <FailureView failure={failure} />}
        {extract && (
          <section aria-labelledby="data-heading" class="wide">
            <h2 id="data-heading">Extracted data</h2>
            {execution.dataChanged === false && <p class="hint">Same as the previous run’s.</p>}
            <DataView
              data={extract.data}
              id="run-data"
              source={{ executionId }}
              downloadHint="This run’s records (CSV, JSONL) with its id and time, or its data as stored (JSON)."
            />
          </section>
        )}
        <StepOutputs steps={steps} />
        <ArtifactsList artifacts={artifacts} />
        <DeliveriesList deliveries={deliveries} onRedelivered={results.reload} />
        <LogsView logs={logs} />
      </div>
    </>
  );
}
