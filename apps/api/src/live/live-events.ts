import type { ExecutionStatus, Logger } from '@botfleet/core';
import { listExecutionsChangedSince, readRunProgress, type Db, type RunProgress } from '@botfleet/db';
import type { ExecutionNotice } from '@botfleet/queue';
import { isEnded, phaseOf, type RunCursor } from './run-cursor';
import { runEvents, type RunViews, type StreamEvent } from './run-events';
import { HEARTBEAT_FRAME, sseFrame, type SseConnection } from './sse-connection';

/** Log rows per read: a run's catch-up of thousands of lines goes in a few reads, none unbounded. */
const LOG_BATCH = 500;

/**
 * An organization stream that resumes gets the runs changed since a little before its cursor:
 * a change is published after its commit, so one committed just before the client's last event
 * may have been published just after it. Status events are idempotent, so the overlap is harmless.
 */
const ORGANIZATION_RESUME_OVERLAP_MS = 10_000;
const ORGANIZATION_RESUME_LIMIT = 1_000;

export interface LiveEventsOptions {
  db: Db;
  logger: Logger;
  /** SSE_HEARTBEAT_SECONDS, in ms. */
  heartbeatMs: number;
  views: RunViews;
}

/** The organization stream's filters (GET /executions/events). */
export interface OrganizationStreamFilter {
  botId?: string;
  status?: ExecutionStatus[];
}

/**
 * The API process's live fan-out (docs/live-runs.md). Notices heard on the process's one Redis
 * subscription come in through `hear`; streams are added with `followRun`/`followOrganization`.
 * Database reads grow with the runs followed and their changes, never with the number of clients.
 */
export interface LiveEvents {
  /** Streams the run to the client from `from`, until the run ends or either side leaves. */
  followRun(conn: SseConnection, executionId: string, from: RunCursor): void;
  /** Streams the organization's status changes; with `resumeAfter` (Unix ms), changes since then first. */
  followOrganization(
    conn: SseConnection,
    organizationId: string,
    filter: OrganizationStreamFilter,
    resumeAfter: number | null,
  ): void;
  /** A notice from the channel. */
  hear(notice: ExecutionNotice): void;
  /** Whether any run or organization is followed: when none is, `hear` has nothing to do. */
  following(): boolean;
  /** Notices may have been missed (the subscription reconnected): every followed run reads once. */
  resync(): void;
  /** What is open now: followed runs, and clients of runs and of organizations. */
  stats(): { runs: number; runClients: number; organizationClients: number };
  /** Ends every stream (shutdown): clients reconnect elsewhere with their Last-Event-ID. */
  close(): void;
}

/** One followed run: its clients, and where they all stand (each is brought here as it joins). */
interface RunWatch {
  executionId: string;
  /** Set by the first read; until then no notice has anything to compare with. */
  cursor: RunCursor | null;
  /** The row as of the cursor: the status a joining client is brought to. */
  row: RunProgress['execution'] | null;
  clients: Set<SseConnection>;
  /** Clients whose catch-up is queued or under way: they keep the watch even before they are in. */
  joining: number;
  /** Reads and joins run one at a time, in order, so no change falls between two of them. */
  queue: Promise<void>;
  refreshQueued: boolean;
}

interface OrganizationClient {
  conn: SseConnection;
  filter: OrganizationStreamFilter;
  /** Live frames held while the resume's catch-up is being written; null once live. */
  held: string[] | null;
}

export function createLiveEvents(options: LiveEventsOptions): LiveEvents {
  const { db, logger, views } = options;
  const watches = new Map<string, RunWatch>();
  const organizations = new Map<string, Set<OrganizationClient>>();
  let closed = false;

  // One timer for every stream of the process, not one per client.
  const heartbeat = setInterval(() => {
    for (const watch of watches.values()) for (const conn of watch.clients) conn.write(HEARTBEAT_FRAME);
    for (const clients of organizations.values()) for (const client of clients) client.conn.write(HEARTBEAT_FRAME);
  }, options.heartbeatMs);
  heartbeat.unref();

  const framesOf = (events: StreamEvent[]) => events.map(sseFrame).join('');

  function enqueue(watch: RunWatch, what: string, step: () => Promise<void>): void {
    watch.queue = watch.queue.then(step).catch((err: unknown) => {
      // The database is away or the read failed: its clients reconnect and resume from their
      // last event id, which is better than a stream that silently stops.
      logger.warn({ executionId: watch.executionId, what, err: (err as Error).message }, 'live run stream failed');
      endWatch(watch);
    });
  }

  function dropIfIdle(watch: RunWatch): void {
    if (watch.clients.size === 0 && watch.joining === 0 && watches.get(watch.executionId) === watch)
      watches.delete(watch.executionId);
  }

  function endWatch(watch: RunWatch): void {
    if (watches.get(watch.executionId) === watch) watches.delete(watch.executionId);
    for (const conn of [...watch.clients]) conn.end();
    watch.clients.clear();
  }

  /** Brings one client from `from` to where the watch stands (or, as its first client, to now). */
  async function join(watch: RunWatch, conn: SseConnection, from: RunCursor): Promise<void> {
    let cursor = from;
    for (;;) {
      if (conn.closed) return;
      const upTo = watch.cursor ?? undefined;
      const progress = await readRunProgress(db, watch.executionId, cursor, { logLimit: LOG_BATCH, upTo });
      if (!progress) {
        // Deleted meanwhile (its bot was deleted): nothing more will come.
        endWatch(watch);
        conn.end();
        return;
      }
      // A later client is brought to the watch's status, not to a newer one the watch has still
      // to announce to everyone (it would see that status twice).
      const snapshot = upTo && watch.row ? { ...progress, execution: watch.row } : progress;
      const partial = progress.logs.length === LOG_BATCH;
      const step = runEvents(cursor, snapshot, views, partial);
      conn.write(framesOf(step.events));
      cursor = step.cursor;
      if (partial) continue;
      if (!upTo) {
        // The first client positions the watch from the database itself, not from its own
        // cursor (which came from the client).
        watch.cursor = { ...progress.position, phase: phaseOf(progress.execution.status, progress.execution.attempt) };
        watch.row = progress.execution;
      }
      if (isEnded(cursor.phase) && step.events.at(-1)?.event === 'end') {
        conn.end();
        return;
      }
      if (conn.closed) return;
      if (watches.get(watch.executionId) !== watch) {
        // The watch failed meanwhile and is gone: no notice would reach this client. It
        // reconnects with its last event id and resumes on a watch of its own.
        conn.end();
        return;
      }
      watch.clients.add(conn);
      return;
    }
  }

  /** Reads what is new past the watch's cursor, once, and writes it to every client. */
  async function refresh(watch: RunWatch): Promise<void> {
    watch.refreshQueued = false;
    const from = watch.cursor;
    if (!from || watch.clients.size === 0) return;
    const progress = await readRunProgress(db, watch.executionId, from, { logLimit: LOG_BATCH });
    if (!progress) {
      endWatch(watch);
      return;
    }
    const partial = progress.logs.length === LOG_BATCH;
    const { events, cursor } = runEvents(from, progress, views, partial);
    watch.cursor = cursor;
    watch.row = progress.execution;
    if (events.length > 0) {
      const frames = framesOf(events);
      for (const conn of watch.clients) conn.write(frames);
    }
    if (events.at(-1)?.event === 'end') endWatch(watch);
    else if (partial) scheduleRefresh(watch);
  }

  function scheduleRefresh(watch: RunWatch): void {
    // Notices that arrive while one read waits are answered by that read: it reads everything new.
    if (watch.refreshQueued) return;
    watch.refreshQueued = true;
    enqueue(watch, 'refresh', () => refresh(watch));
  }

  function matches(filter: OrganizationStreamFilter, run: { botId: string; status: ExecutionStatus }): boolean {
    return (!filter.botId || filter.botId === run.botId) && (!filter.status || filter.status.includes(run.status));
  }

  function statusEvent(run: {
    executionId: string;
    botId: string;
    status: ExecutionStatus;
    attempt: number;
    at: number;
  }): StreamEvent {
    const { executionId, botId, status, attempt, at } = run;
    return {
      event: 'status',
      id: `${at}.${executionId}`,
      data: { executionId, botId, status, attempt: Math.max(attempt, 1), updatedAt: at },
    };
  }

  async function resumeOrganization(client: OrganizationClient, organizationId: string, after: number) {
    const rows = await listExecutionsChangedSince(
      db,
      organizationId,
      new Date(after - ORGANIZATION_RESUME_OVERLAP_MS),
      client.filter,
      ORGANIZATION_RESUME_LIMIT,
    );
    client.conn.write(
      framesOf(rows.map((row) => statusEvent({ ...row, executionId: row.id, at: row.updatedAt.getTime() }))),
    );
    for (const frame of client.held ?? []) client.conn.write(frame);
    client.held = null;
  }

  return {
    followRun(conn, executionId, from) {
      if (closed) {
        conn.end();
        return;
      }
      let watch = watches.get(executionId);
      if (!watch) {
        watch = {
          executionId,
          cursor: null,
          row: null,
          clients: new Set(),
          joining: 0,
          queue: Promise.resolve(),
          refreshQueued: false,
        };
        watches.set(executionId, watch);
      }
      const joined = watch;
      joined.joining++;
      conn.onClose(() => {
        joined.clients.delete(conn);
        dropIfIdle(joined);
      });
      enqueue(joined, 'join', async () => {
        try {
          await join(joined, conn, from);
        } catch (err) {
          // Not among the watch's clients yet, so ending the watch would not end it.
          conn.end();
          throw err;
        } finally {
          joined.joining--;
          dropIfIdle(joined);
        }
      });
    },

    followOrganization(conn, organizationId, filter, resumeAfter) {
      if (closed) {
        conn.end();
        return;
      }
      const client: OrganizationClient = { conn, filter, held: resumeAfter === null ? null : [] };
      let clients = organizations.get(organizationId);
      if (!clients) {
        clients = new Set();
        organizations.set(organizationId, clients);
      }
      // In before the catch-up read, holding what it hears meanwhile, so nothing falls between.
      clients.add(client);
      conn.onClose(() => {
        const current = organizations.get(organizationId);
        current?.delete(client);
        if (current?.size === 0) organizations.delete(organizationId);
      });
      if (resumeAfter !== null)
        resumeOrganization(client, organizationId, resumeAfter).catch((err: unknown) => {
          logger.warn({ organizationId, err: (err as Error).message }, 'live organization stream resume failed');
          conn.end();
        });
    },

    hear(notice) {
      if (notice.changed.includes('status')) {
        const clients = organizations.get(notice.organizationId);
        if (clients) {
          const frame = sseFrame(statusEvent(notice));
          for (const client of clients) {
            if (!matches(client.filter, notice)) continue;
            if (client.held) client.held.push(frame);
            else client.conn.write(frame);
          }
        }
      }
      const watch = watches.get(notice.executionId);
      if (watch) scheduleRefresh(watch);
    },

    resync() {
      for (const watch of watches.values()) scheduleRefresh(watch);
    },

    following() {
      return watches.size > 0 || organizations.size > 0;
    },

    stats() {
      let runClients = 0;
      for (const watch of watches.values()) runClients += watch.clients.size + watch.joining;
      let organizationClients = 0;
      for (const clients of organizations.values()) organizationClients += clients.size;
      return { runs: watches.size, runClients, organizationClients };
    },

    close() {
      closed = true;
      clearInterval(heartbeat);
      for (const watch of [...watches.values()]) endWatch(watch);
      for (const clients of [...organizations.values()]) for (const client of [...clients]) client.conn.end();
      organizations.clear();
    },
  };
}
