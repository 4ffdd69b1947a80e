import { createParser } from 'eventsource-parser';
import { BotfleetNetworkError, toBotfleetError } from './api-error';
import type { Client } from './generated/client';
import type { ExecutionStatus, OrganizationStreamEvent, RunStreamEvent } from './generated/types.gen';

/*
 * The live event streams (docs/live-runs.md) as async iterators: the events come typed, with
 * their names (the generated `streamExecutionEvents` yields only their data), and a dropped
 * connection is resumed with Last-Event-ID so the caller sees every event once, in order.
 */

export interface FollowOptions {
  /** Stops following (the iterator then ends). */
  signal?: AbortSignal;
  /** Resume after this event's id instead of from the start. */
  lastEventId?: string;
  /** Reconnect after a dropped connection or a 502/503/504 (default true). */
  reconnect?: boolean;
  /** Called with each event's id as it arrives (to persist it, say). */
  onEventId?: (id: string) => void;
}

/** The server's `retry:` line replaces this; EventSource's own default is about as long. */
const DEFAULT_RETRY_MS = 3_000;
/** Answers a reverse proxy gives while the API restarts: worth another try. */
const PASSING = new Set([502, 503, 504]);

/**
 * A run's events: `status`, `step`, `log`, then `end`, after which the iterator ends. A `status`
 * with a higher `attempt` starts a new attempt: steps start again at index 0.
 */
export function followExecutionEvents(
  client: Client,
  executionId: string,
  options: FollowOptions = {},
): AsyncGenerator<RunStreamEvent> {
  return follow<RunStreamEvent>(
    client,
    `/executions/${encodeURIComponent(executionId)}/events`,
    new URLSearchParams(),
    options,
    (event) => event.event === 'end',
  );
}

export interface OrganizationEventsFilter {
  botId?: string;
  status?: ExecutionStatus[];
}

/** The organization's runs' status changes, until `signal` aborts (the stream never ends by itself). */
export function followOrganizationEvents(
  client: Client,
  filter: OrganizationEventsFilter = {},
  options: FollowOptions = {},
): AsyncGenerator<OrganizationStreamEvent> {
  const query = new URLSearchParams();
  if (filter.botId) query.set('botId', filter.botId);
  if (filter.status?.length) query.set('status', filter.status.join(','));
  return follow<OrganizationStreamEvent>(client, '/executions/events', query, options, () => false);
}

async function* follow<E extends { event: string; id: string; data: unknown }>(
  client: Client,
  path: string,
  query: URLSearchParams,
  options: FollowOptions,
  isLast: (event: E) => boolean,
): AsyncGenerator<E> {
  const config = client.getConfig();
  const fetchImpl = config.fetch ?? globalThis.fetch;
  const search = query.size > 0 ? `?${query}` : '';
  const url = `${config.baseUrl ?? ''}${path}${search}`;
  const { signal } = options;
  const reconnect = options.reconnect ?? true;
  let lastEventId = options.lastEventId;
  let retryMs = DEFAULT_RETRY_MS;
  while (!signal?.aborted) {
    const token =
      typeof config.auth === 'function' ? await config.auth({ scheme: 'bearer', type: 'http' }) : config.auth;
    let response: Response;
    try {
      response = await fetchImpl(url, {
        headers: {
          Accept: 'text/event-stream',
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
          ...(lastEventId ? { 'Last-Event-ID': lastEventId } : {}),
        },
        signal,
      });
    } catch (err) {
      if (signal?.aborted) return;
      if (!reconnect) throw toBotfleetError(err, undefined);
      await pause(retryMs, signal);
      continue;
    }
    if (!response.ok || !response.body) {
      if (reconnect && PASSING.has(response.status)) {
        await response.body?.cancel();
        await pause(retryMs, signal);
        continue;
      }
      throw toBotfleetError(await errorBodyOf(response), response);
    }
    const pending: E[] = [];
    const parser = createParser({
      onEvent(message) {
        // Only the API's own events: each has a name, an id and JSON data.
        if (!message.event || message.id === undefined) return;
        pending.push({ event: message.event, id: message.id, data: JSON.parse(message.data) as unknown } as E);
      },
      onRetry(ms) {
        retryMs = ms;
      },
    });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.feed(value);
        for (const event of pending.splice(0)) {
          lastEventId = event.id;
          options.onEventId?.(event.id);
          yield event;
          if (isLast(event)) return;
        }
      }
    } catch (err) {
      if (signal?.aborted) return;
      if (!reconnect)
        throw new BotfleetNetworkError(`The event stream broke: ${(err as Error).message}`, { cause: err });
    } finally {
      // Also when the caller stops iterating early: the connection is not left open.
      await reader.cancel().catch(() => undefined);
    }
    // Ended without its last event: the server went away (a restart, a shutdown). Resume.
    if (!reconnect) throw new BotfleetNetworkError('The event stream ended before its end event');
    await pause(retryMs, signal);
  }
}

async function errorBodyOf(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
