import type { Request, Response } from 'express';
import type { StreamEvent } from './run-events';
import type { StreamSlot } from './stream-slots';

/** How long EventSource waits before it reconnects (the `retry:` line every stream starts with). */
const RETRY_MS = 3_000;

/**
 * A client that reads slower than its stream is written: past this much unsent output it is
 * dropped rather than buffered without bound. It reconnects with its Last-Event-ID and resumes
 * from the database, which costs one read instead of memory held for it.
 */
const MAX_UNSENT_BYTES = 4 * 1024 * 1024;

/** One client's open event stream. */
export interface SseConnection {
  /** Writes a frame made by sseFrame (made once and written to every client of an event). */
  write(frame: string): void;
  /** Ends the response (a run that ended, a shutdown); does nothing once closed. */
  end(): void;
  readonly closed: boolean;
  /** Called once when the stream closes, whoever closed it (the client, end(), a slow read). */
  onClose(listener: () => void): void;
}

/** An event as it goes on the wire: its JSON data on one line (JSON never holds a raw newline). */
export function sseFrame(event: StreamEvent): string {
  return `id: ${event.id}\nevent: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

export const HEARTBEAT_FRAME = ': heartbeat\n\n';

/**
 * Answers the request with an event stream, held under `slot` (StreamSlots.acquire) until it
 * closes, whoever closes it. Nothing buffers it: no compression (and `no-transform` keeps proxies
 * from adding any), `X-Accel-Buffering: no` for nginx, and each frame goes to the socket as it is
 * written.
 */
export function openSse(req: Request, res: Response, slot: StreamSlot): SseConnection {
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    'X-Accel-Buffering': 'no',
    Connection: 'keep-alive',
  });
  // An idle stream is not an idle connection: heartbeats keep it, not a socket timeout.
  req.socket.setTimeout(0);
  req.socket.setNoDelay(true);
  res.write(`retry: ${RETRY_MS}\n\n`);
  let closed = false;
  const listeners: (() => void)[] = [];
  const close = () => {
    if (closed) return;
    closed = true;
    for (const listener of listeners.splice(0)) listener();
  };
  listeners.push(() => slot.release());
  res.on('close', close);
  // The client may have gone while the slot was being taken: no 'close' would come any more.
  if (req.socket.destroyed) close();
  const conn: SseConnection = {
    write(frame) {
      if (closed) return;
      if (res.writableLength > MAX_UNSENT_BYTES) {
        res.destroy();
        close();
        return;
      }
      res.write(frame);
    },
    end() {
      if (closed) return;
      res.end();
      close();
    },
    get closed() {
      return closed;
    },
    onClose(listener) {
      if (closed) listener();
      else listeners.push(listener);
    },
  };
  slot.onLost(() => conn.end());
  return conn;
}
