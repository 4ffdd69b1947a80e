import type { IncomingMessage } from 'node:http';
import type request from 'supertest';
import { waitUntil } from '@botfleet/testkit';

/** An event as a test reads it off the wire. */
export interface ReceivedEvent {
  event: string;
  id: string;
  data: unknown;
}

export interface EventStreamReader {
  status: number;
  headers: Headers;
  /** Every event so far, in order. */
  events: ReceivedEvent[];
  /** Comment lines so far (heartbeats). */
  comments: number;
  /** Settles when the server ends the response (or close() is called). */
  ended: Promise<void>;
  /** Whether the response has ended. */
  readonly done: boolean;
  /** Waits until at least `count` events have arrived (or the predicate holds). */
  waitFor(until: number | ((events: ReceivedEvent[]) => boolean), timeoutMs?: number): Promise<ReceivedEvent[]>;
  /** Drops the connection, as a client that goes away. */
  close(): void;
}

/**
 * Opens an event stream as a plain HTTP client and reads its frames: tests check the wire itself,
 * apart from the SDK's parser. Only what the API writes is understood: `id`, `event` and one
 * `data` line per event, `retry` and comment lines.
 */
export async function openEventStream(url: string, headers: Record<string, string>): Promise<EventStreamReader> {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { Accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const events: ReceivedEvent[] = [];
  let comments = 0;
  let done = false;
  const read = async () => {
    if (!response.body) return;
    const decoder = new TextDecoder();
    let buffered = '';
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { value, done: finished } = await reader.read();
        if (finished) break;
        buffered += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffered.indexOf('\n\n')) >= 0) {
          const frame = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const fields = new Map<string, string>();
          for (const line of frame.split('\n')) {
            if (line.startsWith(':')) comments++;
            const colon = line.indexOf(': ');
            if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 2));
          }
          const event = fields.get('event');
          if (event !== undefined)
            events.push({ event, id: fields.get('id') ?? '', data: JSON.parse(fields.get('data') ?? 'null') });
        }
      }
    } catch {
      // Aborted by close(), or the server dropped the connection: either way the stream is over.
    } finally {
      done = true;
    }
  };
  const ended = read();
  return {
    status: response.status,
    headers: response.headers,
    events,
    get comments() {
      return comments;
    },
    ended,
    get done() {
      return done;
    },
    async waitFor(until, timeoutMs = 30_000) {
      const holds = typeof until === 'number' ? (e: ReceivedEvent[]) => e.length >= until : until;
      await waitUntil(
        () => {
          if (holds(events)) return true;
          if (done) throw new Error(`the stream ended first, after ${JSON.stringify(events.map((e) => e.event))}`);
          return false;
        },
        { timeoutMs, message: `events never arrived; got ${JSON.stringify(events.map((e) => e.event))}` },
      );
      return events;
    },
    close() {
      abort.abort();
    },
  };
}

/** Whether a route answers an event stream (a response that may never end by itself). */
export function isEventStreamRoute(definition: { responses: Record<number, { mediaType?: string }> }): boolean {
  return Object.values(definition.responses).some((spec) => spec.mediaType === 'text/event-stream');
}

/**
 * A supertest parser for tests that call every route: an event stream is read up to its first
 * chunk and dropped (it may never end); any other body is read whole, as JSON when it parses.
 */
export function parseStreamStart(response: request.Response, done: (err: Error | null, body: unknown) => void): void {
  // What supertest hands a parser is the raw response stream.
  const res = response as unknown as IncomingMessage;
  let text = '';
  res.setEncoding('utf8');
  const stream = String(res.headers['content-type']).startsWith('text/event-stream');
  res.on('data', (chunk: string) => {
    text += chunk;
    if (!stream) return;
    res.destroy();
    done(null, text);
  });
  res.on('end', () => {
    if (stream) return;
    try {
      done(null, text === '' ? {} : (JSON.parse(text) as unknown));
    } catch {
      done(null, text);
    }
  });
}
