import { createLogger } from '@botfleet/io';
import { createOps } from './ops';
import { startOpsServer, type OpsServer } from './ops-server';
import type { WatchedQueue } from './queue-depth';

const logger = createLogger({ level: 'silent' });

function fakeQueue(name: string, counts: Record<string, number>, oldestAgeMs: number | null): WatchedQueue {
  return {
    name,
    getJobCounts: async () => counts,
    getJobs: async () => (oldestAgeMs === null ? [] : [{ timestamp: Date.now() - oldestAgeMs, delay: 0 }]),
  };
}

describe('ops server', () => {
  let server: OpsServer;
  const ops = createOps();
  const url = (path: string) => `http://127.0.0.1:${server.port}${path}`;
  beforeAll(async () => {
    server = await startOpsServer({ port: 0, host: '127.0.0.1', ops, logger });
  });
  afterAll(() => server.close());

  it('answers liveness, and readiness from every check added under a name', async () => {
    expect(await (await fetch(url('/healthz'))).json()).toEqual({ status: 'ok' });
    const removeA = ops.readiness.add('redis', async () => 'PONG');
    let second = true;
    const removeB = ops.readiness.add('redis', async () => {
      if (!second) throw new Error('gone');
    });
    expect(await (await fetch(url('/readyz'))).json()).toEqual({ status: 'ok', checks: { redis: 'ok' } });

    second = false;
    const down = await fetch(url('/readyz'));
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('5');
    expect(await down.json()).toEqual({
      error: { code: 'unavailable', message: 'Not ready', details: { redis: 'down' } },
    });

    removeB();
    expect((await fetch(url('/readyz'))).status).toBe(200);
    removeA();
  });

  it('counts a check that does not answer in time as down', async () => {
    const remove = ops.readiness.add('slow', () => new Promise(() => undefined));
    expect(await ops.readiness.run(50)).toEqual({ ready: false, checks: { slow: 'down' } });
    remove();
  });

  it('reports queue depth and the oldest waiting job, leaving out a queue that cannot be read', async () => {
    const broken: WatchedQueue = {
      name: 'broken',
      getJobCounts: () => Promise.reject(new Error('redis is down')),
      getJobs: () => Promise.reject(new Error('redis is down')),
    };
    const unwatch = ops.watchQueues([
      fakeQueue('executions', { wait: 3, active: 2, delayed: 1, failed: 0, prioritized: 0 }, 5_000),
      fakeQueue('deliveries', { wait: 0, active: 0, delayed: 0, failed: 4, prioritized: 0 }, null),
      broken,
    ]);
    const text = await (await fetch(url('/metrics'))).text();
    expect(text).toContain('botfleet_queue_jobs{queue="executions",state="waiting"} 3');
    expect(text).toContain('botfleet_queue_jobs{queue="executions",state="active"} 2');
    expect(text).toContain('botfleet_queue_jobs{queue="deliveries",state="failed"} 4');
    expect(text).toContain('botfleet_queue_oldest_waiting_seconds{queue="deliveries"} 0');
    const oldest = /botfleet_queue_oldest_waiting_seconds\{queue="executions"\} ([\d.]+)/.exec(text);
    expect(Number(oldest?.[1])).toBeGreaterThanOrEqual(5);
    expect(text).not.toContain('queue="broken"');
    expect(text).toContain('process_cpu_user_seconds_total');

    unwatch();
    expect(await (await fetch(url('/metrics'))).text()).not.toContain('queue="executions"');
  });

  it('answers 404 for other paths and 405 for other methods', async () => {
    expect((await fetch(url('/nope'))).status).toBe(404);
    const post = await fetch(url('/readyz'), { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });
});
