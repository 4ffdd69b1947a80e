import { listOrganizationExecutions, type Execution } from '@botfleet/sdk';
import { useState } from 'preact/hooks';
import { useSession } from '../console-session';
import { formatDuration, formatTime } from '../format';
import { hrefOf } from '../routes';
import { NO_FILTERS, queryOf, STATUSES, TRIGGERS, type RunFilters, type Trigger } from '../run-filters';
import { useLoad } from '../use-load';
import { ErrorAlert } from './error-alert';
import { Link } from './link';
import { StatusBadge } from './status-badge';

const PAGE = 20;
const inFlight = (run: Execution) => run.status === 'pending' || run.status === 'running';

/** Runs, newest first, with filters; of one bot when `botId` is given. Refreshes while any is running. */
export function RunsList({ botId }: { botId?: string }) {
  const { client } = useSession();
  const [filters, setFilters] = useState<RunFilters>(NO_FILTERS);
  const [pages, setPages] = useState(1);
  const prefix = botId ? 'bot-runs' : 'runs';

  const runs = useLoad(
    async () => {
      const rows: Execution[] = [];
      let cursor: string | undefined;
      let more = false;
      for (let page = 0; page < pages; page++) {
        const { data } = await listOrganizationExecutions({
          client,
          query: { ...queryOf(filters), ...(botId ? { botId } : {}), limit: PAGE, cursor },
          throwOnError: true,
        });
        rows.push(...data.data);
        more = data.nextCursor !== null;
        if (!data.nextCursor) break;
        cursor = data.nextCursor;
      }
      return { rows, more };
    },
    [botId, filters, pages],
    { pollMs: 2000, keepPolling: (data) => data.rows.some(inFlight) },
  );

  const change = (next: Partial<RunFilters>) => {
    setFilters((old) => ({ ...old, ...next }));
    setPages(1);
  };

  return (
    <>
      <form class="filters" aria-label="Filter runs" onSubmit={(event) => event.preventDefault()}>
        <fieldset>
          <legend>Status</legend>
          {STATUSES.map((status) => (
            <label class="inline" key={status}>
              <input
                type="checkbox"
                checked={filters.statuses.includes(status)}
                onChange={(event) =>
                  change({
                    statuses: event.currentTarget.checked
                      ? [...filters.statuses, status]
                      : filters.statuses.filter((s) => s !== status),
                  })
                }
              />{' '}
              {status}
            </label>
          ))}
        </fieldset>
        <div class="field">
          <label for={`${prefix}-trigger`}>Trigger</label>
          <select
            id={`${prefix}-trigger`}
            value={filters.trigger}
            onChange={(event) => {
              const value = event.currentTarget.value;
              change({ trigger: (TRIGGERS as readonly string[]).includes(value) ? (value as Trigger) : '' });
            }}
          >
            <option value="">Any</option>
            {TRIGGERS.map((trigger) => (
              <option key={trigger} value={trigger}>
                {trigger}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for={`${prefix}-from`}>Created from</label>
          <input
            id={`${prefix}-from`}
            type="date"
            value={filters.from}
            onChange={(event) => change({ from: event.currentTarget.value })}
          />
        </div>
        <div class="field">
          <label for={`${prefix}-to`}>Created until</label>
          <input
            id={`${prefix}-to`}
            type="date"
            value={filters.to}
            onChange={(event) => change({ to: event.currentTarget.value })}
          />
        </div>
      </form>
      <ErrorAlert error={runs.error} />
      {runs.data === undefined ? (
        <p aria-live="polite">Loading runs…</p>
      ) : runs.data.rows.length === 0 ? (
        <p>No runs match.</p>
      ) : (
        <ul class="cards" data-testid={`${prefix}-list`}>
          {runs.data.rows.map((run) => (
            <li class="card" key={run.id}>
              <div class="card-title">
                <Link href={hrefOf({ page: 'run', executionId: run.id })}>{formatTime(run.createdAt)}</Link>
                <StatusBadge status={run.status} />
              </div>
              <dl class="facts">
                {!botId && (
                  <div>
                    <dt>Bot</dt>
                    <dd>
                      <Link href={hrefOf({ page: 'bot', botId: run.botId })}>
                        <code>{run.botId}</code>
                      </Link>
                    </dd>
                  </div>
                )}
                <div>
                  <dt>Trigger</dt>
                  <dd>{run.trigger}</dd>
                </div>
                <div>
                  <dt>Duration</dt>
                  <dd>{formatDuration(run.duration)}</dd>
                </div>
              </dl>
            </li>
          ))}
        </ul>
      )}
      {runs.data?.more && (
        <button type="button" class="secondary" onClick={() => setPages((n) => n + 1)}>
          Load more runs
        </button>
      )}
    </>
  );
}
