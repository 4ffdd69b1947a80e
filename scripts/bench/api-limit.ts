import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { runAutocannon, type LoadResult } from './api-load';
import type { BareServerReady } from './bare-api-server';
import { ownCpuMsSince, processCpuMs } from './process-tree-cpu';

/** One autocannon window with the CPU the server under load used during it. */
export interface ServerLoad extends LoadResult {
  /** Server CPU ms (user + system) over the window. */
  cpuMs: number;
  /** cpuMs / requests answered. */
  cpuMsPerRequest: number;
}

export interface ApiLimitResult {
  /** botfleet's API as deployed: the launcher with ROLES=api and API_PROCESSES=1, a process of its own. */
  botfleet: { trigger: ServerLoad; get: ServerLoad };
  /** The same API inside the bench's process (as `npm start` runs it), printed beside it. */
  botfleetInProcess: { trigger: ServerLoad; get: ServerLoad };
  bare: { trigger: ServerLoad; get: ServerLoad };
  /** The bare handlers behind a minimal Express app: the ceiling for an Express API. */
  bareExpress: { trigger: ServerLoad; get: ServerLoad };
}

export interface BareApiServer {
  readonly pid: number;
  readonly baseUrl: string;
  stop(): Promise<void>;
}

/** Starts bare-api-server.ts in a child process (through tsx, as the bench itself runs). */
export async function startBareApiServer(options: {
  databaseUrl: string;
  redisUrl: string;
  queuePrefix: string;
  organizationId: string;
  /** `express`: the same handlers behind a minimal Express app. */
  http?: 'node' | 'express';
}): Promise<BareApiServer> {
  const child: ChildProcess = fork(join(__dirname, 'bare-api-server.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: {
      ...process.env,
      DATABASE_URL: options.databaseUrl,
      REDIS_URL: options.redisUrl,
      BARE_QUEUE_PREFIX: options.queuePrefix,
      BARE_ORGANIZATION_ID: options.organizationId,
      BARE_HTTP: options.http ?? 'node',
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: BareServerReady) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`the bare API server exited with ${code} before listening`)));
  });
  return {
    pid: child.pid!,
    baseUrl: `http://127.0.0.1:${port}/api/v1`,
    async stop() {
      if (child.connected) child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** One load window, with the CPU `cpuMs` reports for the server over it. */
export async function measured(load: () => Promise<LoadResult>, cpuMs: () => () => number): Promise<ServerLoad> {
  const used = cpuMs();
  const result = await load();
  const cpu = used();
  return { ...result, cpuMs: cpu, cpuMsPerRequest: result.total > 0 ? cpu / result.total : 0 };
}

export interface RouteLoadOptions {
  authHeader: string;
  /** A bot and an execution of the bench organization. */
  botId: string;
  executionId: string;
  seconds: number;
  connections: number;
}

/** The two hot routes' autocannon windows (GET an execution, trigger a run), for any server's base URL. */
export function routeLoads(options: RouteLoadOptions) {
  const common = { seconds: options.seconds, connections: options.connections };
  const loads = {
    get: (baseUrl: string) => () =>
      runAutocannon({
        ...common,
        url: `${baseUrl}/executions/${options.executionId}`,
        method: 'GET',
        headers: { authorization: options.authHeader },
      }),
    trigger: (baseUrl: string) => () =>
      runAutocannon({
        ...common,
        url: `${baseUrl}/bots/${options.botId}/executions`,
        method: 'POST',
        headers: { authorization: options.authHeader, 'content-type': 'application/json' },
        body: '{}',
      }),
  };
  return {
    ...loads,
    /**
     * One unmeasured window of each route against an API process started for the measurement:
     * it checks the key once (then caches it), loads its Redis scripts and compiles its hot paths,
     * as an API that has served requests before already did.
     */
    async warmUp(baseUrl: string): Promise<void> {
      await loads.get(baseUrl)();
      await loads.trigger(baseUrl)();
    },
  };
}

/**
 * The same autocannon settings against botfleet's API and the bare servers, back to back per
 * route, botfleet first for GET and last for the trigger, so a trend in outside load does not
 * always land on the same side. botfleet's figures come from its API in a process of its own
 * (the launcher, ROLES=api), like the bare server and the Express ceiling: a server's CPU per
 * request is then its own, not that of the bench's process, whose heap holds everything the
 * runs before left (Playwright's client objects, the figures), which its garbage collection
 * walks during the window. The in-process API is measured too and printed beside it.
 */
export async function runApiLimit(
  options: RouteLoadOptions & {
    /** botfleet's API in a process of its own, and the CPU of that process over a window. */
    botfleet: { baseUrl: string; cpuMs: () => () => number };
    /** botfleet's API in this process (its CPU is this process's: autocannon runs in a child). */
    inProcessBaseUrl: string;
    /** Serve the same organization as botfleet's API. */
    bare: BareApiServer;
    bareExpress: BareApiServer;
  },
): Promise<ApiLimitResult> {
  const ownCpu = () => {
    const since = process.cpuUsage();
    return () => ownCpuMsSince(since);
  };
  const childCpu = (server: BareApiServer) => () => {
    const since = processCpuMs(server.pid);
    return () => processCpuMs(server.pid) - since;
  };
  const { get, trigger, warmUp } = routeLoads(options);
  await warmUp(options.botfleet.baseUrl);

  const botfleetGet = await measured(get(options.botfleet.baseUrl), options.botfleet.cpuMs);
  const bareGet = await measured(get(options.bare.baseUrl), childCpu(options.bare));
  const expressGet = await measured(get(options.bareExpress.baseUrl), childCpu(options.bareExpress));
  const inProcessGet = await measured(get(options.inProcessBaseUrl), ownCpu);
  const inProcessTrigger = await measured(trigger(options.inProcessBaseUrl), ownCpu);
  const expressTrigger = await measured(trigger(options.bareExpress.baseUrl), childCpu(options.bareExpress));
  const bareTrigger = await measured(trigger(options.bare.baseUrl), childCpu(options.bare));
  const botfleetTrigger = await measured(trigger(options.botfleet.baseUrl), options.botfleet.cpuMs);
  return {
    botfleet: { trigger: botfleetTrigger, get: botfleetGet },
    botfleetInProcess: { trigger: inProcessTrigger, get: inProcessGet },
    bare: { trigger: bareTrigger, get: bareGet },
    bareExpress: { trigger: expressTrigger, get: expressGet },
  };
}
