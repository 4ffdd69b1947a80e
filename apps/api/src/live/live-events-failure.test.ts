import type { Db } from '@botfleet/db';
import { createLogger } from '@botfleet/io';
import { waitUntil } from '@botfleet/testkit';
import { createLiveEvents } from './live-events';
import { START } from './run-cursor';
import type { RunViews } from './run-events';
import type { SseConnection } from './sse-connection';

/* What a stream does when its database read fails: it ends (the client resumes), never hangs. */

function connection(): SseConnection & { frames: string[]; ended: boolean } {
  const listeners: (() => void)[] = [];
  const conn = {
    frames: [] as string[],
    ended: false,
    closed: false,
    write(frame: string) {
      if (!conn.closed) conn.frames.push(frame);
    },
    end() {
      if (conn.closed) return;
      conn.closed = true;
      conn.ended = true;
      for (const listener of listeners.splice(0)) listener();
    },
    onClose(listener: () => void) {
      listeners.push(listener);
    },
  };
  return conn;
}

const views = {} as RunViews;

it('ends a joining stream whose catch-up read fails, and forgets its watch', async () => {
  const failing = { $queryRawUnsafe: () => Promise.reject(new Error('database is away')) } as unknown as Db;
  const live = createLiveEvents({ db: failing, logger: createLogger({ level: 'silent' }), heartbeatMs: 60_000, views });
  try {
    const conn = connection();
    live.followRun(conn, 'exe_1', START);
    await waitUntil(() => conn.ended, { message: 'the stream was never ended' });
    expect(live.stats()).toEqual({ runs: 0, runClients: 0, organizationClients: 0 });
  } finally {
    live.close();
  }
});

it('ends every stream at close, and takes none after', () => {
  const never = { $queryRawUnsafe: () => new Promise(() => undefined) } as unknown as Db;
  const live = createLiveEvents({ db: never, logger: createLogger({ level: 'silent' }), heartbeatMs: 60_000, views });
  const org = connection();
  live.followOrganization(org, 'org_1', {}, null);
  expect(live.stats().organizationClients).toBe(1);
  live.close();
  expect(org.ended).toBe(true);
  const late = connection();
  live.followRun(late, 'exe_1', START);
  expect(late.ended).toBe(true);
  expect(live.stats()).toEqual({ runs: 0, runClients: 0, organizationClients: 0 });
});

it('says whether anything is followed: with nothing open, notices go unread', async () => {
  const failing = { $queryRawUnsafe: () => Promise.reject(new Error('database is away')) } as unknown as Db;
  const live = createLiveEvents({ db: failing, logger: createLogger({ level: 'silent' }), heartbeatMs: 60_000, views });
  try {
    expect(live.following()).toBe(false);
    const org = connection();
    live.followOrganization(org, 'org_1', {}, null);
    expect(live.following()).toBe(true);
    org.end();
    expect(live.following()).toBe(false);
    const run = connection();
    live.followRun(run, 'exe_1', START);
    expect(live.following()).toBe(true);
    // The failed read ends the stream and forgets its watch.
    await waitUntil(() => run.ended && !live.following(), { message: 'the run was still followed' });
  } finally {
    live.close();
  }
});
