// The bench itself; run it with `npm run bench` (scripts/bench.mjs sets the database, queue prefix
// and log level, and documents the BENCH_* variables). Everything runs in this one process, as
// `npm start` runs its roles: the API, a worker, the fixture site and the bare-Playwright browser.
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
import { createBrowserHost, resolveChromiumPath } from '@botfleet/runner';
import { startWorker } from '@botfleet/worker';
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { createBenchApiClient } from './api-client';
import { runApiLimit, startBareApiServer } from './api-limit';
import { launcherCpu, runApiProcesses, startLauncher } from './api-processes';
import { runBareLoop, type BareLoopResult } from './bare-loop';
import { createCompletionTracker } from './completion-tracker';
import { benchApiSettings, loadBenchConfig } from './config';
import { runE2e, type E2eResult } from './e2e-run';
import { runRounds } from './rounds';
import { runRunnerLoop, type RunnerLoopResult } from './runner-loop';
import { BOT_STEPS, startFixtureSite } from './fixture-site';
import { formatTable, summarize } from './report';
import { measureListLatency } from './list-latency';
import { formatBotSearch, measureBotSearch } from './bot-search';
import { formatResultsExport, measureResultsExport } from './results-export';
import { loadAverage1m } from './stats';
import { benchWebhooks } from './webhooks-bench';
import { profileWorkerRuns } from './worker-profile';
import { measureWorkerRss } from './worker-rss';
import { formatRunControl, measureBatchRate, measureFairWait } from './run-control';
import { formatTracingCost, measureTracingCost } from './tracing-cost';
import { runAsCommand } from './run-as-command';

const say = (message: string) => process.stderr.write(`[bench] ${message}\n`);

/** Undo actions, run last-registered first, each on its own so one failure does not skip the rest. */
function createCleanup() {
  const actions: Array<{ name: string; run: () => Promise<unknown> }> = [];
  return {
    add(name: string, run: () => Promise<unknown>) {
      actions.push({ name, run });
    },
    /** Runs (and forgets) the named action now, e.g. to stop the worker before the API load. */
    async now(name: string) {
      const index = actions.findIndex((a) => a.name === name);
      if (index >= 0) await actions.splice(index, 1)[0]!.run();
    },
    async runAll() {
      for (const action of actions.splice(0).reverse()) {
        await action
          .run()
          .catch((error: unknown) => say(`cleanup of ${action.name} failed: ${(error as Error).message}`));
      }
    },
  };
}

async function main(): Promise<void> {
  const config = loadBenchConfig();
  const logger = createLogger({ level: config.logLevel });
  const cleanup = createCleanup();
  const loadAverage: Record<string, number> = { start: loadAverage1m() };
  const benchStarted = performance.now();
  say(
    `${config.quick ? '--quick: ' : ''}${config.executions} runs per side in ${config.rounds} round(s), concurrency ${config.concurrency}, webhooks ${config.webhooks}, API ${config.apiSeconds} s; load average ${loadAverage.start}`,
  );

  try {
    await createDatabaseIfMissing(config.databaseUrl);
    await migrate(config.databaseUrl, { migrationsDir: findMigrationsDir(__dirname) });
    // One client shared by the API and the worker, as the launcher shares it between roles; the
    // bench's own bookkeeping (set-up, profiling) gets a small pool of its own so it does not
    // take connections the roles would otherwise use.
    const db = createPrismaClient(config.databaseUrl);
    cleanup.add('database', () => db.$disconnect());
    const benchDb = createPrismaClient(config.databaseUrl, { poolSize: 2 });
    cleanup.add('bench database client', () => benchDb.$disconnect());

    const site = await startFixtureSite();
    cleanup.add('fixture site', () => site.server.close());

    const org = await ensureOrganization(benchDb, `bench-${randomBytes(4).toString('hex')}`);
    // Deleting the organization cascades to its key, bots, executions and their outputs.
    cleanup.add('bench organization', () => deleteOrganization(benchDb, org.id));
    const { key } = await createApiKey(benchDb, { organizationId: org.id, name: 'bench', permission: 'write' });

    const secretBox = createSecretBox(randomBytes(32));
    const common = { db, redis: redisSettingsFromUrl(config.redisUrl), queuePrefix: config.queuePrefix, logger };
    const api = await startApi({
      ...common,
      secretBox,
      port: 0,
      settings: benchApiSettings(),
    });
    cleanup.add('api', () => api.stop());
    const worker = await startWorker({
      ...common,
      concurrency: config.concurrency,
      chromiumPath: config.chromiumPath,
      proxyUrls: [],
      defaultTimeoutSeconds: 60,
    });
    cleanup.add('worker', () => worker.stop());
    // Queue handles of the bench's own, to obliterate whatever the API load left queued.
    const redis = createRedisConnection(redisSettingsFromUrl(config.redisUrl), 'worker');
    const queues = createQueues(redis, config.queuePrefix);
    cleanup.add('bench queues', async () => {
      await queues.get(executionRun.queue).obliterate({ force: true });
      await queues.close();
      redis.disconnect();
    });

    // The bare and runner-only loops' browser: launched exactly as the worker launches its own
    // (same resolution, BASE_CHROMIUM_ARGS), in a process of its own like the worker's.
    const bareHost = createBrowserHost({ executablePath: resolveChromiumPath({ explicitPath: config.chromiumPath }) });
    cleanup.add('bare browser', () => bareHost.close());
    const browser = await bareHost.getBrowser();

    const client = createBenchApiClient(api.port, key);
    const botId = await client.createBot({ name: 'bench catalogue', targetUrl: site.url, steps: BOT_STEPS });
    const tracker = await createCompletionTracker(config.databaseUrl, { intervalMs: 50, timeoutMs: 60_000 });
    cleanup.add('completion tracker', () => tracker.stop());

    const maxInFlight = config.concurrency * 2;
    say('warming up');
    const warmRuns = config.warmupRuns * config.concurrency;
    const warm = await runE2e({ api: client, tracker, botId, runs: warmRuns, maxInFlight });
    await runRunnerLoop({ browserHost: bareHost, url: site.url, runs: warmRuns, concurrency: config.concurrency });
    await runBareLoop({ browser, url: site.url, runs: warmRuns, concurrency: config.concurrency });

    const measured = await runRounds(config.executions, config.rounds, async (runs, round) => {
      const tag = config.rounds > 1 ? ` (round ${round + 1}/${config.rounds})` : '';
      const loadAt = (phase: string) =>
        (loadAverage[`${phase}${config.rounds > 1 ? round + 1 : ''}`] = loadAverage1m());
      let bare: BareLoopResult | undefined;
      let runner: RunnerLoopResult | undefined;
      let e2e: E2eResult | undefined;
      const sides = [
        async () => {
          say(`bare Playwright loop: ${runs} runs${tag}, load average ${loadAt('bare')}`);
          bare = await runBareLoop({ browser, url: site.url, runs, concurrency: config.concurrency });
        },
        async () => {
          say(`runner only: ${runs} runs${tag}, load average ${loadAt('runner')}`);
          runner = await runRunnerLoop({ browserHost: bareHost, url: site.url, runs, concurrency: config.concurrency });
        },
        async () => {
          say(`end to end: ${runs} executions${tag}, load average ${loadAt('e2e')}`);
          e2e = await runE2e({ api: client, tracker, botId, runs, maxInFlight });
        },
      ];
      // Each round starts with a different side, so a trend in outside load (a test suite
      // starting or ending) does not always land on the same one.
      for (let i = 0; i < sides.length; i++) await sides[(round + i) % sides.length]!();
      return { bare: bare!, runner: runner!, e2e: e2e! };
    });
    const workerProfile = await profileWorkerRuns(benchDb, measured.e2e.executionIds);
    loadAverage.tracing = loadAverage1m();
    say(`tracing cost: trace off, onFailure and always (load average ${loadAverage.tracing})`);
    const tracingCost = await measureTracingCost({
      api: client,
      tracker,
      db: benchDb,
      siteUrl: site.url,
      runs: config.quick ? 20 : 60,
      maxInFlight,
    });
    const completionPolls = tracker.polls;

    loadAverage.rss = loadAverage1m();
    say(`worker RSS: after ${config.rssLowRuns} and ${config.rssHighRuns} runs (load average ${loadAverage.rss})`);
    // --quick: a bot that only opens the same page (no steps), so 200 runs fit in two minutes.
    const rssBotId = config.quick
      ? await client.createBot({ name: 'bench rss (goto only)', targetUrl: site.url, steps: [] })
      : botId;
    const workerRss = await measureWorkerRss({
      api: client,
      tracker,
      botId: rssBotId,
      bot: config.quick ? 'goto-only' : 'catalogue',
      runsSoFar: warm.runs + measured.e2e.runs,
      lowRuns: config.rssLowRuns,
      highRuns: config.rssHighRuns,
      maxInFlight,
    });
    await cleanup.now('completion tracker');
    await cleanup.now('bare browser');

    // A second organization's run while the first holds a backlog (fair sharing), worker running.
    const backlog = config.quick ? 300 : 1_000;
    say(`run control: a second organization's wait under a ${backlog}-run backlog`);
    const orgB = await ensureOrganization(benchDb, `bench-b-${randomBytes(4).toString('hex')}`);
    cleanup.add('second bench organization', () => deleteOrganization(benchDb, orgB.id));
    const clientB = createBenchApiClient(
      api.port,
      (await createApiKey(benchDb, { organizationId: orgB.id, name: 'bench', permission: 'write' })).key,
    );
    const botB = await clientB.createBot({ name: 'bench second org', targetUrl: site.url, steps: BOT_STEPS });
    const fairWait = await measureFairWait({
      baseUrl: client.baseUrl,
      a: { authHeader: client.authHeader, botId },
      b: { authHeader: clientB.authHeader, botId: botB },
      backlog,
    });

    // Stopped first, so a trigger only inserts and enqueues, and no run competes for the CPU.
    await cleanup.now('worker');
    say('run control: batch trigger rate');
    const batchRate = await measureBatchRate({
      baseUrl: client.baseUrl,
      authHeader: client.authHeader,
      botId,
      batches: config.quick ? 2 : 5,
      batchSize: 1_000,
    });
    await queues.get(executionRun.queue).obliterate({ force: true });
    // The bare server: the same database and organization, a queue prefix of its own.
    const bareApi = await startBareApiServer({
      databaseUrl: config.databaseUrl,
      redisUrl: config.redisUrl,
      queuePrefix: `${config.queuePrefix}-bare`,
      organizationId: org.id,
    });
    cleanup.add('bare API server', () => bareApi.stop());
    const bareExpressApi = await startBareApiServer({
      databaseUrl: config.databaseUrl,
      redisUrl: config.redisUrl,
      queuePrefix: `${config.queuePrefix}-bare-express`,
      organizationId: org.id,
      http: 'express',
    });
    cleanup.add('bare Express server', () => bareExpressApi.stop());
    // botfleet's API as deployed, in a process of its own like the two above (api-limit.ts says
    // why); its queue prefix is the API-processes part's, obliterated after that part.
    const processesPrefix = `${config.queuePrefix}-processes`;
    const apiRole = await startLauncher({
      apiProcesses: '1',
      databaseUrl: config.databaseUrl,
      redisUrl: config.redisUrl,
      queuePrefix: processesPrefix,
    });
    cleanup.add('API role', () => apiRole.stop());
    loadAverage.api = loadAverage1m();
    say(
      `API load: ${config.apiSeconds} s each of GET and POST, botfleet and bare server (load average ${loadAverage.api})`,
    );
    const apiLimit = await runApiLimit({
      botfleet: { baseUrl: apiRole.baseUrl, cpuMs: launcherCpu(apiRole) },
      inProcessBaseUrl: client.baseUrl,
      authHeader: client.authHeader,
      botId,
      executionId: warm.executionIds[0]!,
      bare: bareApi,
      bareExpress: bareExpressApi,
      seconds: config.apiSeconds,
      connections: config.apiConnections,
    });
    await cleanup.now('API role');
    await cleanup.now('bare API server');
    await cleanup.now('bare Express server');
    await queues.get(executionRun.queue).obliterate({ force: true });

    // The same windows against the launcher serving the api role with API_PROCESSES=1 and `auto`.
    loadAverage.apiProcesses = loadAverage1m();
    say(`API processes: the launcher with API_PROCESSES=1 and auto (load average ${loadAverage.apiProcesses})`);
    const apiProcesses = await runApiProcesses({
      authHeader: client.authHeader,
      botId,
      executionId: warm.executionIds[0]!,
      seconds: config.apiSeconds,
      connections: config.apiConnections,
      databaseUrl: config.databaseUrl,
      redisUrl: config.redisUrl,
      queuePrefix: processesPrefix,
    });
    const processesQueues = createQueues(redis, processesPrefix);
    await processesQueues.get(executionRun.queue).obliterate({ force: true });
    await processesQueues.close();

    loadAverage.webhooks = loadAverage1m();
    say(`webhooks: ${config.webhooks} deliveries (load average ${loadAverage.webhooks})`);
    const webhooks = await benchWebhooks({
      db,
      databaseUrl: config.databaseUrl,
      redisUrl: config.redisUrl,
      queuePrefix: config.queuePrefix,
      secretBox,
      organizationId: org.id,
      count: config.webhooks,
      concurrency: config.webhookConcurrency,
    });

    // Last: seeding a million rows wakes autovacuum, which should not land on another figure.
    loadAverage.list = loadAverage1m();
    say(
      `list latency: seeding ${config.listSmallRows} and ${config.listLargeRows} executions${config.quick ? ' (--quick: 100,000, not 1,000,000)' : ''} (load average ${loadAverage.list})`,
    );
    const list = await measureListLatency({
      db: benchDb,
      databaseUrl: config.databaseUrl,
      baseUrl: client.baseUrl,
      smallRows: config.listSmallRows,
      largeRows: config.listLargeRows,
      requests: config.quick ? 50 : 200,
      cleanup: (name, run) => cleanup.add(name, run),
    });
    loadAverage.botSearch = loadAverage1m();
    say(`bot search: seeding 1,000 and 100,000 bots (load average ${loadAverage.botSearch})`);
    const botSearch = await measureBotSearch({
      db: benchDb,
      databaseUrl: config.databaseUrl,
      baseUrl: client.baseUrl,
      smallBots: 1_000,
      largeBots: 100_000,
      requests: config.quick ? 30 : 200,
      triggerInserts: config.quick ? 400 : 2_000,
      cleanup: (name, run) => cleanup.add(name, run),
    });
    loadAverage.resultsExport = loadAverage1m();
    const exportRows = config.quick ? 10_000 : 100_000;
    say(
      `results export: ${exportRows} runs as CSV and JSON Lines from an API process (load average ${loadAverage.resultsExport})`,
    );
    const resultsExport = await measureResultsExport({
      db: benchDb,
      databaseUrl: config.databaseUrl,
      redisUrl: config.redisUrl,
      queuePrefix: config.queuePrefix,
      rows: exportRows,
      cleanup: (name, run) => cleanup.add(name, run),
    });
    loadAverage.end = loadAverage1m();

    const figures = {
      ...measured,
      executions: config.executions,
      concurrency: config.concurrency,
      rounds: config.rounds,
      completionPolls,
      worker: workerProfile,
      api: { ...apiLimit, seconds: config.apiSeconds, connections: config.apiConnections },
      apiProcesses,
      webhooks: { ...webhooks, count: config.webhooks, concurrency: config.webhookConcurrency },
      list,
      workerRss,
      quick: config.quick,
      cores: availableParallelism(),
      loadAverage,
    };
    const summary = summarize(figures);
    process.stdout.write(
      `\n${formatTable(figures, summary)}\n\n${formatRunControl(batchRate, fairWait)}\n\n${formatTracingCost(tracingCost)}\n\n${formatBotSearch(botSearch)}\n\n${formatResultsExport(resultsExport)}\n\n`,
    );
    say(`measured in ${Math.round((performance.now() - benchStarted) / 1000)} s; cleaning up`);
    process.stdout.write(`${JSON.stringify({ ...summary, tracing: tracingCost, botSearch, resultsExport })}\n`);
  } finally {
    await cleanup.runAll();
  }
}

runAsCommand(main);
