import {
  followOrganizationEvents,
  listOrganizationExecutions,
  type Execution,
  type ExecutionStatus,
} from '@botfleet/sdk';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useSession } from '../console-session';
import { formatDuration, formatTime } from '../format';
import { hrefOf } from '../routes';
import { NO_FILTERS, queryOf, STATUSES, TRIGGERS, type RunFilters, type Trigger } from '../run-filters';
import { useEventStream } from '../use-event-stream';
import { useLoad } from '../use-load';
import { ErrorAlert } from './error-alert';
import { Link } from './link';
import { StatusBadge } from './status-badge';
import { StreamNotice } from './stream-notice';

const PAGE = 20;
/** Events that need the list read again (a new run, a run's end and its duration) are gathered this long. */
const REFRESH_AFTER_MS = 1000;

/**
 * Runs, newest first, with filters; of one bot when `botId` is given. Kept live by the
 * organization's event stream, not by polling: a listed run's new status is shown at once, and
 * what an event cannot say by itself (a new run, a finished run's duration) is read again, at
 * most once per REFRESH_AFTER_MS however many runs change.
 */
export function RunsList({ botId }: { botId?: string }) {
  const { client } = useSession();
  const [filters, setFilters] = useState<RunFilters>(NO_FILTERS);
  const [pages, setPages] = useState(1);
  const prefix = botId ? 'bot-runs' : 'runs';
  // Statuses heard on the stream, numbered: one heard after a read began is newer than that read.
  const heardCount = useRef(0);
  const [heard, setHeard] = useState<ReadonlyMap<string, { status: ExecutionStatus; seq: number }>>(new Map());

  const runs = useLoad(async () => {
    const since = heardCount.current;
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
    return { rows, more, since };
  }, [botId, filters, pages]);
  // What a read has seen is forgotten from what was heard.
  useEffect(() => {
    const since = runs.data?.since;
    if (since !== undefined) setHeard((old) => new Map([...old].filter(([, entry]) => entry.seq > since)));
  }, [runs.data]);

  const refresh = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (refresh.current) clearTimeout(refresh.current);
    },
    [],
  );
  const refreshSoon = () => {
    refresh.current ??= setTimeout(() => {
      refresh.current = null;
      runs.reload();
    }, REFRESH_AFTER_MS);
  };

  // Status filters are applied here rather than by the stream: a listed run that moves out of
  // them must be heard, to leave the list. Trigger and dates are the list's to apply on a read.
  const stream = useEventStream(
    (signal) => followOrganizationEvents(client, { botId }, { signal }),
    ({ data: { executionId, status } }) => {
      const seq = ++heardCount.current;
      setHeard((old) => new Map(old).set(executionId, { status, seq }));
      const listed = runs.data?.rows.some((row) => row.id === executionId) ?? false;
      const wanted = filters.statuses.length === 0 || filters.statuses.includes(status);
      // A run to add, or an ended run whose duration the event does not carry.
      if ((!listed && wanted) || (listed && status !== 'pending' && status !== 'running')) refreshSoon();
    },
    [botId],
  );

  const rows = runs.data?.rows
    .map((row) => {
      const latest = heard.get(row.id);
      return latest && latest.seq > (runs.data?.since ?? 0) ? { ...row, status: latest.status } : row;
    })
    .filter((row) => filters.statuses.length === 0 || filters.statuses.includes(row.status));

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
      <StreamNotice error={stream.error} what="the runs" />
      {rows === undefined ? (
        <p aria-live="polite">Loading runs…</p>
      ) : rows.length === 0 ? (
        <p>No runs match.</p>
      ) : (
        <ul class="cards" data-testid={`${prefix}-list`}>
          {rows.map((run) => (
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
                      <Link href={hrefOf({ page: 'bot', botId: run.botId })}>{run.botName}</Link>
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
