import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { measured, routeLoads, type RouteLoadOptions, type ServerLoad } from './api-limit';
import { descendantsCpuMs, processCpuMs } from './process-tree-cpu';

const LAUNCHER = join(__dirname, '..', '..', 'apps', 'launcher', 'src', 'main.ts');

/** One launcher serving the api role with API_PROCESSES set, under the two routes' load. */
export interface ApiProcessesSide {
  /** API processes it ran (`auto` resolved by the launcher: one per core). */
  processes: number;
  get: ServerLoad;
  trigger: ServerLoad;
}

export interface ApiProcessesResult {
  one: ApiProcessesSide;
  auto: ApiProcessesSide;
}

export interface Launcher {
  readonly pid: number;
  readonly baseUrl: string;
  readonly processes: number;
  stop(): Promise<void>;
}

/**
 * The launcher as deployed (ROLES=api, through tsx as `npm start` runs it), on the bench database
 * and a queue prefix of its own; resolves once it prints that its API listens, which with
 * API_PROCESSES > 1 is once every API process listens.
 */
export async function startLauncher(options: {
  apiProcesses: string;
  databaseUrl: string;
  redisUrl: string;
  queuePrefix: string;
}): Promise<Launcher> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', LAUNCHER], {
    env: {
      ...process.env,
      ROLES: 'api',
      API_PROCESSES: options.apiProcesses,
      PORT: '0',
      OPS_PORT: '0',
      DATABASE_URL: options.databaseUrl,
      REDIS_URL: options.redisUrl,
      QUEUE_PREFIX: options.queuePrefix,
      SECRETS_KEY: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'silent',
      // Capacity is measured: neither the per-key rate nor the pending cap may answer 429.
      RATE_LIMIT_PER_MINUTE: '0',
      MAX_PENDING_EXECUTIONS_PER_ORG: '10000000',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const listening = await new Promise<RegExpExecArray>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const line = /API listening on (http:\/\/localhost:\d+) \(roles: api(?:; (\d+) API processes)?\)/.exec(output);
      if (line) resolve(line);
    });
    child.once('exit', (code) =>
      reject(new Error(`the launcher (API_PROCESSES=${options.apiProcesses}) exited with ${code}`)),
    );
  });
  return {
    pid: child.pid!,
    baseUrl: `${listening[1]!.replace('localhost', '127.0.0.1')}/api/v1`,
    processes: Number(listening[2] ?? 1),
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** CPU of the launcher and every process under it (its API processes), over a window. */
export const launcherCpu = (launcher: Launcher) => () => {
  const read = () => processCpuMs(launcher.pid) + (descendantsCpuMs(launcher.pid) ?? Number.NaN);
  const since = read();
  return () => read() - since;
};

/**
 * API throughput per machine with API_PROCESSES=1 and `auto` side by side: two launchers serving
 * the api role, both up for the whole measurement, under the same autocannon windows as the
 * in-process API (api-limit.ts), after one unmeasured window of each route. Interleaved (GET: one then auto; trigger: auto then one) so a
 * trend in outside load does not always land on the same side. On a machine whose cores the load
 * generator shares, `auto` can only show what the cores left to it allow.
 */
export async function runApiProcesses(
  options: RouteLoadOptions & { databaseUrl: string; redisUrl: string; queuePrefix: string },
): Promise<ApiProcessesResult> {
  // Both on one queue prefix, which nothing consumes: the caller obliterates it afterwards.
  const start = (apiProcesses: string) => startLauncher({ ...options, apiProcesses });
  const one = await start('1');
  try {
    const auto = await start('auto');
    try {
      const { get, trigger, warmUp } = routeLoads(options);
      for (const launcher of [one, auto]) await warmUp(launcher.baseUrl);
      const oneGet = await measured(get(one.baseUrl), launcherCpu(one));
      const autoGet = await measured(get(auto.baseUrl), launcherCpu(auto));
      const autoTrigger = await measured(trigger(auto.baseUrl), launcherCpu(auto));
      const oneTrigger = await measured(trigger(one.baseUrl), launcherCpu(one));
      return {
        one: { processes: one.processes, get: oneGet, trigger: oneTrigger },
        auto: { processes: auto.processes, get: autoGet, trigger: autoTrigger },
      };
    } finally {
      await auto.stop();
    }
  } finally {
    await one.stop();
  }
}
