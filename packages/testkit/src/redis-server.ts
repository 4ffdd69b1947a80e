import IORedis from 'ioredis';
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './free-port';
import { waitUntil } from './wait-until';

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Kills the server (SIGKILL: gone at once, as in an outage) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty (no persistence). */
  restart(): Promise<void>;
}

/**
 * A throwaway `redis-server` of the test's own (it must be on PATH), for tests that take Redis
 * away: the shared test Redis must never be stopped. Nothing is persisted.
 */
export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | null = null;

  async function start(): Promise<void> {
    const started = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdio: 'ignore',
      },
    );
    child = started;
    await waitUntil(
      async () => {
        if (started.exitCode !== null) throw new Error(`redis-server exited (${started.exitCode})`);
        const probe = new IORedis(port, '127.0.0.1', {
          lazyConnect: true,
          maxRetriesPerRequest: 0,
          retryStrategy: () => null,
        });
        probe.on('error', () => undefined);
        try {
          await probe.connect();
          return (await probe.ping()) === 'PONG';
        } catch {
          return false;
        } finally {
          probe.disconnect();
        }
      },
      { timeoutMs: 10_000, message: 'redis-server did not start' },
    );
  }

  async function stop(): Promise<void> {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGKILL');
    await exited;
  }

  await start();
  return { port, url: `redis://127.0.0.1:${port}`, stop, restart: start };
}
