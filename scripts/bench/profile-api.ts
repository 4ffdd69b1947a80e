// Profiles botfleet's API on one hot route under autocannon load, as the bench loads it:
//
//   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/bf_bench QUEUE_PREFIX=bf-prof \
//     npx tsx scripts/bench/profile-api.ts get|trigger [seconds]
//
// The API runs in this process, which holds nothing else (as the bench's ROLES=api launcher
// process does); no worker, so triggered runs stay queued and are removed at the end. V8's
// sampling profiler (node:inspector) covers only the load window. Writes the profile (open it in Chrome DevTools) and prints where the CPU went: by
// package, then the functions with the most self time.
import { createSecretBox, redisSettingsFromUrl } from '@botfleet/core';
import {
  createApiKey,
  createDatabaseIfMissing,
  createPrismaClient,
  deleteOrganization,
  ensureOrganization,
  findMigrationsDir,
  migrate,
} from '@botfleet/db';
import { startApi } from '@botfleet/api';
import { createLogger } from '@botfleet/io';
import { createQueues, createRedisConnection, executionRun } from '@botfleet/queue';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Session, type Profiler } from 'node:inspector/promises';
import { createBenchApiClient } from './api-client';
import { BOT_STEPS } from './fixture-site';
import { routeLoads } from './api-limit';
import { benchApiSettings, loadBenchConfig } from './config';
import { runAsCommand } from './run-as-command';

const ROUTES = ['get', 'trigger'] as const;
type Route = (typeof ROUTES)[number];

async function main(): Promise<void> {
  const [routeArg, secondsArg] = process.argv.slice(2);
  if (!ROUTES.includes(routeArg as Route)) throw new Error(`usage: profile-api.ts ${ROUTES.join('|')} [seconds]`);
  const route = routeArg as Route;
  const seconds = Number(secondsArg ?? 10);
  const config = loadBenchConfig([]);
  await createDatabaseIfMissing(config.databaseUrl);
  await migrate(config.databaseUrl, { migrationsDir: findMigrationsDir(__dirname) });
  const db = createPrismaClient(config.databaseUrl);
  const org = await ensureOrganization(db, `profile-${randomBytes(4).toString('hex')}`);
  const redis = createRedisConnection(redisSettingsFromUrl(config.redisUrl), 'worker');
  const queues = createQueues(redis, config.queuePrefix);
  const api = await startApi({
    db,
    redis: redisSettingsFromUrl(config.redisUrl),
    queuePrefix: config.queuePrefix,
    logger: createLogger({ level: config.logLevel }),
    secretBox: createSecretBox(randomBytes(32)),
    port: 0,
    // The triggers of a long window would reach the default pending cap (10,000) and be refused.
    settings: { ...benchApiSettings(), maxPendingExecutionsPerOrg: 10_000_000 },
  });
  try {
    const { key } = await createApiKey(db, { organizationId: org.id, name: 'profile', permission: 'write' });
    const client = createBenchApiClient(api.port, key);
    const botId = await client.createBot({ name: 'profiled', targetUrl: 'http://127.0.0.1:9/', steps: BOT_STEPS });
    const executionId = await client.trigger(botId);
    const loads = (windowSeconds: number) =>
      routeLoads({
        authHeader: client.authHeader,
        botId,
        executionId,
        seconds: windowSeconds,
        connections: config.apiConnections,
      })[route](client.baseUrl);
    await loads(2)(); // warm-up: JIT, pools, prepared statements, caches
    const load = loads(seconds);

    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
    const cpuBefore = process.cpuUsage();
    const result = await load();
    const cpu = process.cpuUsage(cpuBefore);
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();

    const file = `api-${route}.cpuprofile`;
    writeFileSync(file, JSON.stringify(profile));
    const cpuMs = (cpu.user + cpu.system) / 1000;
    process.stdout.write(
      `${route}: ${result.total} requests, ${result.rps.toFixed(0)}/s, ${result.errors} errors; ` +
        `CPU ${(cpuMs / result.total).toFixed(3)} ms per request; profile in ${file}\n\n`,
    );
    process.stdout.write(summarize(profile));
  } finally {
    await api.stop();
    await queues.get(executionRun.queue).obliterate({ force: true });
    await queues.close();
    redis.disconnect();
    await deleteOrganization(db, org.id);
    await db.$disconnect();
  }
}

/** Self time by package, and the functions with the most self time, as text. */
function summarize(profile: Profiler.Profile): string {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMs = new Map<number, number>();
  const deltas = profile.timeDeltas ?? [];
  (profile.samples ?? []).forEach((id, i) => selfMs.set(id, (selfMs.get(id) ?? 0) + (deltas[i] ?? 0) / 1000));
  const total = [...selfMs.values()].reduce((sum, ms) => sum + ms, 0);
  const byPackage = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const [id, ms] of selfMs) {
    const { callFrame } = nodes.get(id)!;
    const pkg = packageOf(callFrame.url, callFrame.functionName);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + ms);
    const where = callFrame.url ? `${shortUrl(callFrame.url)}:${callFrame.lineNumber + 1}` : '';
    const name = `${callFrame.functionName || '(anonymous)'} ${where}`.trim();
    byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
  }
  const table = (entries: Map<string, number>, limit: number) =>
    [...entries]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([name, ms]) => `${((100 * ms) / total).toFixed(1).padStart(5)}%  ${name}`)
      .join('\n');
  return `Self time by package (idle and garbage collection included; ${total.toFixed(0)} ms sampled):\n${table(byPackage, 25)}\n\nFunctions:\n${table(byFunction, 40)}\n`;
}

function packageOf(url: string, functionName: string): string {
  if (!url) return `(${functionName || 'native'})`;
  if (url.startsWith('node:')) return 'node core';
  const inModules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (inModules) return inModules[1]!;
  const inWorkspace = /\/(apps|packages)\/([^/]+)\/src\/(.+)$/.exec(url);
  if (inWorkspace) return `${inWorkspace[1]}/${inWorkspace[2]}/${inWorkspace[3]}`;
  return shortUrl(url);
}

const shortUrl = (url: string): string =>
  url.replace(/^file:\/\//, '').replace(/^.*\/(node_modules|apps|packages)\//, '$1/');

runAsCommand(main);
