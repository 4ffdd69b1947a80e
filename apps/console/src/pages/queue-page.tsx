import { getQueueOverview } from '@botfleet/sdk';
import { ErrorAlert } from '../components/error-alert';
import { useSession } from '../console-session';
import { formatDuration, formatTime } from '../format';
import { useLoad } from '../use-load';

/** Often enough to watch a backlog drain, rarely enough to cost the API nothing worth noticing. */
const REFRESH_MS = 5_000;

/**
 * The organization's runs in the queue (admin keys: GET /queue), refreshed while the page is open,
 * and the way to the operator's Bull Board, which shows every organization's jobs and so takes
 * the operator's token rather than an API key.
 */
export function QueuePage() {
  const { isAdmin } = useSession();
  return (
    <>
      <h1>Queue</h1>
      <div class="sections">
        {isAdmin ? (
          <QueueOverview />
        ) : (
          // Reached only by typing the address: the navigation offers it to admin keys alone, and
          // asking the API anyway would be a 403 on every refresh.
          <p>The queue overview needs an admin key.</p>
        )}
        <section aria-labelledby="bull-board-heading">
          <h2 id="bull-board-heading">Every job (operators)</h2>
          <p>
            <a href="/admin/queues">Open the queue board at /admin/queues</a>
          </p>
          <p class="hint">
            It shows the jobs of every organization, so it asks for the operator’s sign-in (HTTP Basic with the server’s
            OPS_ADMIN_TOKEN), not for an API key. It is off when OPS_ADMIN_TOKEN is not set.
          </p>
        </section>
      </div>
    </>
  );
}

function QueueOverview() {
  const { client } = useSession();
  const overview = useLoad(async () => (await getQueueOverview({ client, throwOnError: true })).data, [], {
    pollMs: REFRESH_MS,
    keepPolling: () => true,
  });
  const data = overview.data;
  return (
    <section aria-labelledby="queue-heading">
      <h2 id="queue-heading">Your organization’s runs</h2>
      <p class="hint">Refreshes every {REFRESH_MS / 1000} s.</p>
      <ErrorAlert error={overview.error} />
      {data === undefined ? (
        <p aria-live="polite">Loading the queue…</p>
      ) : (
        <dl class="facts" data-testid="queue-overview">
          <div>
            <dt>Pending</dt>
            <dd data-testid="queue-pending">{data.pending}</dd>
          </div>
          <div>
            <dt>Running</dt>
            <dd data-testid="queue-running">{data.running}</dd>
          </div>
          <div>
            <dt>Oldest waiting</dt>
            <dd data-testid="queue-oldest">
              {data.oldestPendingAgeMs === null ? (
                'nothing is waiting'
              ) : (
                <>
                  {formatDuration(data.oldestPendingAgeMs)}{' '}
                  <span class="hint">(since {formatTime(data.oldestPendingCreatedAt)})</span>
                </>
              )}
            </dd>
          </div>
          <div>
            <dt>Workers (whole fleet)</dt>
            <dd data-testid="queue-workers">{data.workers ?? 'unknown'}</dd>
          </div>
        </dl>
      )}
      <p class="hint">
        Only your organization’s runs are counted: how many runs other organizations have queued is not shown.
      </p>
    </section>
  );
}
