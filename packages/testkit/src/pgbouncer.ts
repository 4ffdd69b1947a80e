import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';
import { waitUntil } from './wait-until';

export interface PgBouncer {
  readonly port: number;
  /** `postgresql://postgres@127.0.0.1:<port>/<database>`: a URL through the pooler. */
  url(database: string): string;
  /** Everything PgBouncer logged so far. */
  output(): string;
  /** Kills PgBouncer (SIGKILL) and waits for it to exit; removes its configuration. */
  stop(): Promise<void>;
}

export interface PgBouncerOptions {
  /** The only databases it offers (each at 127.0.0.1:5432 as `postgres`); nothing else, not even `postgres`. */
  databases: string[];
  /** Default `transaction`, the mode of most managed poolers. */
  poolMode?: 'session' | 'transaction' | 'statement';
  /** Server connections per database (default 20). */
  poolSize?: number;
}

/** Debian's package puts it in /usr/sbin, which a non-root PATH may lack. */
const PGBOUNCER = '/usr/sbin/pgbouncer';

/**
 * A throwaway PgBouncer (Debian's package; `npm test`'s set-up installs it) in front of the test
 * PostgreSQL on 127.0.0.1:5432, in the foreground on a free loopback port. It trusts every client
 * (`auth_type = any`) and logs in to PostgreSQL as `postgres`. PgBouncer refuses to run as root,
 * so as root it runs as the `postgres` user (`-u`).
 */
export async function startPgBouncer(options: PgBouncerOptions): Promise<PgBouncer> {
  if (!existsSync(PGBOUNCER)) {
    throw new Error(`${PGBOUNCER} is missing: npm test's set-up installs it (apt-get install -y pgbouncer)`);
  }
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'botfleet-pgbouncer-'));
  // Readable by the `postgres` user it runs as.
  chmodSync(dir, 0o755);
  const databases = options.databases.map((name) => `${name} = host=127.0.0.1 port=5432 dbname=${name} user=postgres`);
  const ini = join(dir, 'pgbouncer.ini');
  writeFileSync(
    ini,
    [
      '[databases]',
      ...databases,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      // No socket file: several test PgBouncers share /tmp.
      'unix_socket_dir =',
      'auth_type = any',
      `pool_mode = ${options.poolMode ?? 'transaction'}`,
      `default_pool_size = ${options.poolSize ?? 20}`,
      'max_client_conn = 500',
      // pg sends no startup parameters PgBouncer would refuse; this keeps other clients working.
      'ignore_startup_parameters = extra_float_digits,options',
      'logfile =',
      'pidfile =',
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  const runAsPostgres = typeof process.getuid === 'function' && process.getuid() === 0 ? ['-u', 'postgres'] : [];
  const child: ChildProcess = spawn(PGBOUNCER, [...runAsPostgres, ini], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  async function stop(): Promise<void> {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }

  try {
    await waitUntil(
      async () => {
        if (child.exitCode !== null) throw new Error(`pgbouncer exited (${child.exitCode}): ${output}`);
        return accepts(port);
      },
      { timeoutMs: 15_000, message: 'pgbouncer did not start listening' },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    port,
    url: (database) => `postgresql://postgres@127.0.0.1:${port}/${database}`,
    output: () => output,
    stop,
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
