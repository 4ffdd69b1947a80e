import { cancelExecution, rerunExecution } from '@botfleet/sdk';
import { useState } from 'preact/hooks';
import { DeliveriesList } from '../components/deliveries-list';
import { ErrorAlert } from '../components/error-alert';
import { FailureView } from '../components/failure-view';
import { JsonTree } from '../components/json-tree';
import { Link } from '../components/link';
import { LogsView } from '../components/logs-view';
import { StatusBadge } from '../components/status-badge';
import { StepOutputs } from '../components/step-outputs';
import { useSession } from '../console-session';
import { formatDuration, formatTime } from '../format';
import { hrefOf, navigate } from '../routes';
import { isInFlight, isLive, loadRunDetails } from '../run-details';
import { useLoad } from '../use-load';

/** How often a live run is read again: about as often as the worker flushes step outputs. */
const POLL_MS = 1000;

export function RunPage({ executionId }: { executionId: string }) {
  const { client, canWrite } = useSession();
  const details = useLoad(() => loadRunDetails(client, executionId), [executionId], {
    pollMs: POLL_MS,
    keepPolling: isLive,
  });
  const [actionError, setActionError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  if (!details.data) {
    return details.error ? <ErrorAlert error={details.error} /> : <p aria-live="polite">Loading the run…</p>;
  }
  const { execution, steps, logs, deliveries, extract, failure } = details.data;
  const act = (action: () => Promise<void>) => {
    setBusy(true);
    setActionError(null);
    action()
      .catch((caught: unknown) => setActionError(caught))
      .finally(() => setBusy(false));
  };

  return (
    <>
      <h1>
        Run <code>{execution.id}</code>
      </h1>
      <p class="run-status" aria-live="polite">
        <StatusBadge status={execution.status} />
        {isInFlight(execution) && <span class="hint"> updating live</span>}
      </p>
      <dl class="facts">
        <div>
          <dt>Bot</dt>
          <dd>
            <Link href={hrefOf({ page: 'bot', botId: execution.botId })}>
              <code>{execution.botId}</code>
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
              disabled={busy}
              onClick={() =>
                act(async () => {
                  await cancelExecution({ client, path: { executionId }, throwOnError: true });
                  details.reload();
                })
              }
            >
              Cancel run
            </button>
          ) : (
            <button
              type="button"
              disabled={busy}
              onClick={() =>
                act(async () => {
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
      <ErrorAlert error={actionError} />
      <ErrorAlert error={details.error} />
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
          <section aria-labelledby="data-heading">
            <h2 id="data-heading">Extracted data</h2>
            {execution.dataChanged === false && <p class="hint">Same as the previous run’s.</p>}
            <JsonTree value={extract.data} label="data" />
          </section>
        )}
        <StepOutputs steps={steps} />
        <DeliveriesList deliveries={deliveries} onRedelivered={details.reload} />
        <LogsView logs={logs} />
      </div>
    </>
  );
}
