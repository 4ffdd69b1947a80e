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
  let server: RedisProcess | null = null;

  async function start(): Promise<void> {
    server = await spawnRedisProcess(port, []);
  }

  async function stop(): Promise<void> {
    const running = server;
    server = null;
    await running?.kill();
  }

  await start();
  return { port, url: `redis://127.0.0.1:${port}`, stop, restart: start };
}

/** One `redis-server` process (a data node or a sentinel) on a loopback port. */
export interface RedisProcess {
  readonly port: number;
  readonly child: ChildProcess;
  /** The last few kilobytes it wrote, for a failure message. */
  output(): string;
  /** SIGKILL (gone at once, as in an outage), resolved once it has exited; a no-op if it has. */
  kill(): Promise<void>;
}

/** Every server is told this much at least: loopback only, nothing persisted. */
const BASE_ARGUMENTS = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
/** Enough of a server's own log to say why it did not start, without holding it all. */
const OUTPUT_TAIL_CHARS = 4_000;

/**
 * Spawns `redis-server` on `port` with `args` after the base arguments (or `configFile` first,
 * as a sentinel needs: it must be able to rewrite its configuration) and resolves once it
 * answers PING. A server that exits first fails the wait with its output.
 */
export async function spawnRedisProcess(
  port: number,
  args: readonly string[],
  options: { configFile?: string; cwd?: string } = {},
): Promise<RedisProcess> {
  const argv = [
    ...(options.configFile ? [options.configFile] : []),
    '--port',
    String(port),
    ...BASE_ARGUMENTS,
    ...args,
  ];
  const child = spawn('redis-server', argv, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-OUTPUT_TAIL_CHARS));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const redisProcess: RedisProcess = {
    port,
    child,
    output: () => output,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
  try {
    await waitUntil(
      async () => {
        if (child.exitCode !== null)
          throw new Error(`redis-server on port ${port} exited (${child.exitCode}): ${output}`);
        try {
          return (await withRedisClient(port, (client) => client.ping())) === 'PONG';
        } catch {
          return false;
        }
      },
      { timeoutMs: 20_000, message: `redis-server on port ${port} did not start: ${output}` },
    );
  } catch (error) {
    await redisProcess.kill();
    throw error;
  }
  return redisProcess;
}

/**
 * Runs `use` on a client of its own to the server on `port` (data node or sentinel), then
 * disconnects. No retries: a probe answers now or fails, and the caller's wait polls again.
 */
export async function withRedisClient<T>(port: number, use: (client: IORedis) => Promise<T>): Promise<T> {
  const client = new IORedis(port, '127.0.0.1', {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 5_000,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await use(client);
  } finally {
    client.disconnect();
  }
}
