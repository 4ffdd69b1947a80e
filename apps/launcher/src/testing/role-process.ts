import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { get } from 'node:http';
import { join } from 'node:path';
import { freePort } from '@botfleet/testkit';

const MAIN = join(__dirname, '..', 'main.ts');
const ROOT = join(__dirname, '..', '..', '..', '..');

/**
 * How the service is started: the launcher itself (the production entry point, through tsx), or
 * `npm start` as a person or a supervisor runs it (npm, then scripts/start.mjs, then the launcher).
 */
export type StartCommand = 'launcher' | 'npm start';

export interface RoleProcess {
  readonly child: ChildProcess;
  readonly opsUrl: string;
  /** The exit code once the process has exited, or null if it was killed by a signal. */
  readonly exited: Promise<number | null>;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** The port the API listens on once it says so (any free one with PORT=0), else undefined. */
  apiPort(): number | undefined;
  /** GET on the ops port; the body parsed as JSON when it is JSON. */
  get(path: string): Promise<{ status: number; text: string; json: unknown }>;
  /**
   * Sends `signal` to every process of the group the process leads (it is started as a group
   * leader), as systemd's default KillMode, an init that signals the group, or Ctrl-C in a
   * terminal does: npm, scripts/start.mjs and the launcher each get a copy.
   */
  signalGroup(signal: NodeJS.Signals): void;
  /** Sends SIGTERM; resolves with the exit code, or null if it was killed by a signal. */
  terminate(): Promise<number | null>;
}

export interface ServiceSettings {
  databaseUrl: string;
  queuePrefix: string;
  dataDir: string;
}

/**
 * The environment of a launcher under test: this test's environment plus its own database,
 * queues and data directory, a fresh secrets key and an API on any free port. Add what the test
 * is about (ROLES, LOG_LEVEL, ...) on top.
 */
export function serviceEnv(settings: ServiceSettings): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: settings.databaseUrl,
    QUEUE_PREFIX: settings.queuePrefix,
    SECRETS_KEY: randomBytes(32).toString('hex'),
    DATA_DIR: settings.dataDir,
    PORT: '0',
  };
}

/** How often a start whose ops port was taken meanwhile is tried again on another port. */
const PORT_TAKEN_ATTEMPTS = 3;

/**
 * The service in a process group of its own, started with `command`, running the roles in
 * `env.ROLES` with its ops server on a free loopback port. Resolves once the ops server listens;
 * readiness is for the test to wait on.
 *
 * The port must be chosen up front (an OPS_PORT of 0 turns the ops server off), so another process
 * (a parallel test, an outgoing connection's ephemeral port) can take it before the launcher
 * listens: such a start is tried again on another port rather than failing the test.
 */
export async function startRoleProcess(
  env: NodeJS.ProcessEnv,
  command: StartCommand = 'launcher',
): Promise<RoleProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnPort(env, await freePort(), command);
    } catch (error) {
      if (!(error instanceof PortTakenError) || attempt >= PORT_TAKEN_ATTEMPTS) throw error;
    }
  }
}

class PortTakenError extends Error {}

async function startOnPort(env: NodeJS.ProcessEnv, opsPort: number, command: StartCommand): Promise<RoleProcess> {
  const [file, args] =
    command === 'launcher' ? [process.execPath, ['--import', 'tsx', MAIN]] : ['npm', ['start', '--silent']];
  const child = spawn(file, args, {
    cwd: ROOT,
    env: { ...env, OPS_PORT: String(opsPort) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(`ops listening on http://localhost:${opsPort}`)) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void exited.then((code) => {
      const message = `${env.ROLES} process exited (${code}): ${output}`;
      reject(
        output.includes(`EADDRINUSE: address already in use :::${opsPort}`)
          ? new PortTakenError(message)
          : new Error(message),
      );
    });
  });
  const opsUrl = `http://127.0.0.1:${opsPort}`;
  return {
    child,
    opsUrl,
    exited,
    output: () => output,
    apiPort() {
      const port = /botfleet API listening on http:\/\/localhost:(\d+)/.exec(output)?.[1];
      return port === undefined ? undefined : Number(port);
    },
    get: (path) => httpGet(`${opsUrl}${path}`),
    signalGroup(signal) {
      process.kill(-child.pid!, signal);
    },
    terminate() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** A GET on a fresh connection (no keep-alive pool left open when the test ends). */
function httpGet(url: string): Promise<{ status: number; text: string; json: unknown }> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        const json: unknown = res.headers['content-type']?.includes('application/json') ? JSON.parse(text) : null;
        resolve({ status: res.statusCode ?? 0, text, json });
      });
    }).on('error', reject);
  });
}

/** The value of one Prometheus sample (`name{labels}`, labels as printed), or undefined. */
export function sample(metrics: string, series: string): number | undefined {
  const line = metrics.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
