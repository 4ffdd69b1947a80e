import type { ApiLimitResult, ServerLoad } from './api-limit';
import type { ApiProcessesResult } from './api-processes';
import type { ListLatencyResult } from './list-latency';
import type { CpuUse } from './process-tree-cpu';
import type { Measurements } from './rounds';
import { distribution, mean, round1, round2, round3, throughput, type Distribution } from './stats';
import type { DeliveryDrain, WebhooksBenchResult } from './webhooks-bench';
import type { WorkerProfile } from './worker-profile';
import type { WorkerRssResult } from './worker-rss';

export interface BenchFigures extends Measurements {
  executions: number;
  concurrency: number;
  rounds: number;
  /** Queries the bench made to notice completions (warm-up included); their CPU counts as e2e. */
  completionPolls: number;
  worker: WorkerProfile;
  /** botfleet's API and the bare node:http + pg server under the same autocannon settings. */
  api: ApiLimitResult & { seconds: number; connections: number };
  /** The launcher serving the api role with API_PROCESSES=1 and `auto`, same windows. */
  apiProcesses: ApiProcessesResult;
  webhooks: WebhooksBenchResult & { count: number; concurrency: number };
  list: ListLatencyResult;
  workerRss: WorkerRssResult;
  quick: boolean;
  /** Cores of the machine (os.availableParallelism()). */
  cores: number;
  /** 1-minute load average when each phase started, and at the end. */
  loadAverage: Record<string, number>;
}

/** The last line of the output: flat, stable keys, so runs can be diffed or charted. */
export interface BenchSummary {
  e2eThroughput: number;
  bareThroughput: number;
  /** e2e over bare. */
  ratio: number;
  p50LatencyMs: number;
  p95LatencyMs: number;
  apiTriggerRps: number;
  apiTriggerP99Ms: number;
  apiGetRps: number;
  apiGetP99Ms: number;
  webhookRps: number;
  webhookP50Ms: number;
  webhookP95Ms: number;
  /** The worker's run function alone (no queue, no database), and its ratio to bare. */
  runnerThroughput: number;
  runnerRatio: number;
  /** CPU ms per run, this process plus Chromium: barely moved by outside load, unlike throughput. */
  e2eCpuMsPerRun: number;
  runnerCpuMsPerRun: number;
  bareCpuMsPerRun: number;
  /** Share of the window the worker's slots spent between claim and completedAt. */
  workerBusyShare: number;
  /** Claimed -> completed of one execution, against one bare run. */
  e2eRunP50Ms: number;
  bareRunP50Ms: number;
  /** botfleet's API over the bare node:http + pg server (requests/s), same autocannon settings. */
  apiGetRatio: number;
  apiTriggerRatio: number;
  /** The bare handlers behind a minimal Express app over the bare server: what Express alone leaves. */
  apiGetExpressCeiling: number;
  apiTriggerExpressCeiling: number;
  apiGetBareRps: number;
  apiTriggerBareRps: number;
  apiGetP50Ms: number;
  apiGetBareP50Ms: number;
  apiGetBareP99Ms: number;
  apiTriggerP50Ms: number;
  apiTriggerBareP50Ms: number;
  apiTriggerBareP99Ms: number;
  /** Server CPU ms per request: botfleet's API (the launcher, ROLES=api, one process) and the bare server. */
  apiGetCpuMsPerRequest: number;
  apiGetBareCpuMsPerRequest: number;
  apiTriggerCpuMsPerRequest: number;
  apiTriggerBareCpuMsPerRequest: number;
  /** The Express ceiling's CPU ms per request (the bare handlers in a minimal Express app). */
  apiGetExpressCpuMsPerRequest: number;
  apiTriggerExpressCpuMsPerRequest: number;
  /** The same API inside the bench's process (as `npm start` runs it): CPU per request. */
  apiGetCpuMsPerRequestInProcess: number;
  apiTriggerCpuMsPerRequestInProcess: number;
  /** botfleet's CPU per request over the Express ceiling's (target <= 1.25). */
  apiGetCpuOverExpress: number;
  apiTriggerCpuOverExpress: number;
  /** The launcher (api role) with API_PROCESSES=1 and `auto` (apiProcessesAuto of them): requests/s. */
  apiProcessesAuto: number;
  apiGetRpsOneProcess: number;
  apiGetRpsAutoProcesses: number;
  apiTriggerRpsOneProcess: number;
  apiTriggerRpsAutoProcesses: number;
  /** auto over 1: how API throughput grows with the machine's cores. */
  apiGetProcessesRatio: number;
  apiTriggerProcessesRatio: number;
  /** Throughput with `auto` over one process: the geometric mean of the GET and trigger ratios (target >= 1.7 on two cores). */
  apiProcessesScaling: number;
  /**
   * Cores autocannon itself kept busy while it loaded `auto` (GET and trigger windows averaged):
   * on a machine it shares, the API processes had at most the cores minus this.
   */
  apiProcessesLoadGeneratorCores: number;
  /**
   * Cores the whole machine kept busy under load with API_PROCESSES=1 (GET and trigger windows
   * averaged): the API, PostgreSQL, Redis and the load generator share them, so `auto` can only
   * add what this leaves idle.
   */
  apiOneProcessMachineBusyCores: number;
  /** End-to-end executions per second per core of the machine. */
  workerRunsPerSecondPerCore: number;
  /**
   * CPU per delivery draining a backlog: the batched durable sender's over the delivery role's
   * (target >= 0.33: the role within 3x of the batched limit).
   */
  webhookRatio: number;
  webhookRoleRps: number;
  /** The one-at-a-time claim -> POST -> record loop, printed beside the limit. */
  webhookBareRps: number;
  webhookBatchedRps: number;
  webhookCpuMsPerDelivery: number;
  webhookBareCpuMsPerDelivery: number;
  webhookBatchedCpuMsPerDelivery: number;
  /** The same CPU ratio against the one-at-a-time loop. */
  webhookBareRatio: number;
  /** p50 ms of the newest page of a bot's executions with 1k rows and with listLargeRows rows. */
  listLatencyAt1k: number;
  listLatencyAt1M: number;
  /** At1M / At1k: 1 means the page does not slow down with the table. */
  listLatencyRatio: number;
  /** 1,000,000, or 100,000 in --quick (listLatencyAt1M is then measured at 100k rows). */
  listLargeRows: number;
  /** The same ratio (large / small p50) for a run's artifacts and an export of the newest 20 results. */
  artifactsListLatencyRatio: number;
  resultsExportLatencyRatio: number;
  /** Worker process RSS after workerRssRuns[0] and workerRssRuns[1] runs (100 / 1,000; --quick 20 / 200). */
  workerRssAt100Mb: number;
  workerRssAt1000Mb: number;
  workerRssRatio: number;
  workerRssRuns: [number, number];
  /** catalogue (the full run) or goto-only (--quick). */
  workerRssBot: string;
  quick: boolean;
  executions: number;
  concurrency: number;
  rounds: number;
  webhooks: number;
  loadAverage: Record<string, number>;
}

const cpuPerRun = (side: { runs: number; cpu: CpuUse }) =>
  side.runs > 0 ? (side.cpu.nodeMs + side.cpu.chromiumMs) / side.runs : 0;

/**
 * Sum of claimed -> completed over concurrency x window: how much of the measured time the
 * worker slots were inside a run. The rest is the completion transaction's tail, BullMQ's
 * hand-over to the next job, the claim, and the slots' start and end (pipeline fill and drain).
 */
function busyShare(f: BenchFigures): number {
  const busy = f.e2e.breakdownMs.startedToCompleted.reduce((sum, ms) => sum + ms, 0);
  return f.e2e.windowMs > 0 ? busy / (f.concurrency * f.e2e.windowMs) : 0;
}

const cpuLine = (side: { runs: number; cpu: CpuUse }) =>
  `${round1(cpuPerRun(side))}  (node ${round1(side.cpu.nodeMs / side.runs)} + chromium ${round1(side.cpu.chromiumMs / side.runs)})`;

const ratio = (a: number, b: number) => round3(b > 0 ? a / b : 0);
const drainRps = (d: DeliveryDrain) => (d.windowMs > 0 ? d.deliveries / (d.windowMs / 1000) : 0);
const perDelivery = (d: DeliveryDrain) => (d.deliveries > 0 ? d.cpuMs / d.deliveries : 0);

export function summarize(f: BenchFigures): BenchSummary {
  const api = f.api.botfleet;
  const bareThroughput = throughput(f.bare.runs, f.bare.windowMs);
  const runnerThroughput = throughput(f.runner.runs, f.runner.windowMs);
  const e2eThroughput = throughput(f.e2e.runs, f.e2e.windowMs);
  const latency = distribution(f.e2e.latencyMs);
  return {
    e2eThroughput: round2(e2eThroughput),
    bareThroughput: round2(bareThroughput),
    ratio: round3(bareThroughput > 0 ? e2eThroughput / bareThroughput : 0),
    p50LatencyMs: round1(latency.p50),
    p95LatencyMs: round1(latency.p95),
    apiTriggerRps: round1(api.trigger.rps),
    apiTriggerP99Ms: round1(api.trigger.p99Ms),
    apiGetRps: round1(api.get.rps),
    apiGetP99Ms: round1(api.get.p99Ms),
    webhookRps: f.webhooks.webhookRps,
    webhookP50Ms: f.webhooks.webhookP50Ms,
    webhookP95Ms: f.webhooks.webhookP95Ms,
    runnerThroughput: round2(runnerThroughput),
    runnerRatio: round3(bareThroughput > 0 ? runnerThroughput / bareThroughput : 0),
    e2eCpuMsPerRun: round1(cpuPerRun(f.e2e)),
    runnerCpuMsPerRun: round1(cpuPerRun(f.runner)),
    bareCpuMsPerRun: round1(cpuPerRun(f.bare)),
    workerBusyShare: round3(busyShare(f)),
    e2eRunP50Ms: round1(distribution(f.e2e.breakdownMs.startedToCompleted).p50),
    bareRunP50Ms: round1(distribution(f.bare.runMs).p50),
    apiGetRatio: ratio(api.get.rps, f.api.bare.get.rps),
    apiTriggerRatio: ratio(api.trigger.rps, f.api.bare.trigger.rps),
    apiGetExpressCeiling: ratio(f.api.bareExpress.get.rps, f.api.bare.get.rps),
    apiTriggerExpressCeiling: ratio(f.api.bareExpress.trigger.rps, f.api.bare.trigger.rps),
    apiGetBareRps: round1(f.api.bare.get.rps),
    apiTriggerBareRps: round1(f.api.bare.trigger.rps),
    apiGetP50Ms: round1(api.get.p50Ms),
    apiGetBareP50Ms: round1(f.api.bare.get.p50Ms),
    apiGetBareP99Ms: round1(f.api.bare.get.p99Ms),
    apiTriggerP50Ms: round1(api.trigger.p50Ms),
    apiTriggerBareP50Ms: round1(f.api.bare.trigger.p50Ms),
    apiTriggerBareP99Ms: round1(f.api.bare.trigger.p99Ms),
    apiGetCpuMsPerRequest: round3(api.get.cpuMsPerRequest),
    apiGetBareCpuMsPerRequest: round3(f.api.bare.get.cpuMsPerRequest),
    apiTriggerCpuMsPerRequest: round3(api.trigger.cpuMsPerRequest),
    apiTriggerBareCpuMsPerRequest: round3(f.api.bare.trigger.cpuMsPerRequest),
    apiGetExpressCpuMsPerRequest: round3(f.api.bareExpress.get.cpuMsPerRequest),
    apiTriggerExpressCpuMsPerRequest: round3(f.api.bareExpress.trigger.cpuMsPerRequest),
    apiGetCpuMsPerRequestInProcess: round3(f.api.botfleetInProcess.get.cpuMsPerRequest),
    apiTriggerCpuMsPerRequestInProcess: round3(f.api.botfleetInProcess.trigger.cpuMsPerRequest),
    apiGetCpuOverExpress: ratio(api.get.cpuMsPerRequest, f.api.bareExpress.get.cpuMsPerRequest),
    apiTriggerCpuOverExpress: ratio(api.trigger.cpuMsPerRequest, f.api.bareExpress.trigger.cpuMsPerRequest),
    apiProcessesAuto: f.apiProcesses.auto.processes,
    apiGetRpsOneProcess: round1(f.apiProcesses.one.get.rps),
    apiGetRpsAutoProcesses: round1(f.apiProcesses.auto.get.rps),
    apiTriggerRpsOneProcess: round1(f.apiProcesses.one.trigger.rps),
    apiTriggerRpsAutoProcesses: round1(f.apiProcesses.auto.trigger.rps),
    apiGetProcessesRatio: ratio(f.apiProcesses.auto.get.rps, f.apiProcesses.one.get.rps),
    apiTriggerProcessesRatio: ratio(f.apiProcesses.auto.trigger.rps, f.apiProcesses.one.trigger.rps),
    apiProcessesScaling: round3(
      Math.sqrt(
        ratio(f.apiProcesses.auto.get.rps, f.apiProcesses.one.get.rps) *
          ratio(f.apiProcesses.auto.trigger.rps, f.apiProcesses.one.trigger.rps),
      ),
    ),
    apiOneProcessMachineBusyCores: round3(
      (f.apiProcesses.one.get.machineBusyCores + f.apiProcesses.one.trigger.machineBusyCores) / 2,
    ),
    apiProcessesLoadGeneratorCores: round3(
      (f.apiProcesses.auto.get.generatorCores + f.apiProcesses.auto.trigger.generatorCores) / 2,
    ),
    workerRunsPerSecondPerCore: round3(e2eThroughput / f.cores),
    webhookRatio: ratio(perDelivery(f.webhooks.batched), perDelivery(f.webhooks.role)),
    webhookRoleRps: round1(drainRps(f.webhooks.role)),
    webhookBareRps: round1(drainRps(f.webhooks.bare)),
    webhookBatchedRps: round1(drainRps(f.webhooks.batched)),
    webhookCpuMsPerDelivery: round3(perDelivery(f.webhooks.role)),
    webhookBareCpuMsPerDelivery: round3(perDelivery(f.webhooks.bare)),
    webhookBatchedCpuMsPerDelivery: round3(perDelivery(f.webhooks.batched)),
    webhookBareRatio: ratio(perDelivery(f.webhooks.bare), perDelivery(f.webhooks.role)),
    listLatencyAt1k: round2(f.list.small.p50),
    listLatencyAt1M: round2(f.list.large.p50),
    listLatencyRatio: ratio(f.list.large.p50, f.list.small.p50),
    listLargeRows: f.list.largeRows,
    artifactsListLatencyRatio: ratio(f.list.paths.artifacts.large.p50, f.list.paths.artifacts.small.p50),
    resultsExportLatencyRatio: ratio(f.list.paths.results.large.p50, f.list.paths.results.small.p50),
    workerRssAt100Mb: f.workerRss.low.rssMb,
    workerRssAt1000Mb: f.workerRss.high.rssMb,
    workerRssRatio: ratio(f.workerRss.high.rssMb, f.workerRss.low.rssMb),
    workerRssRuns: [f.workerRss.low.runs, f.workerRss.high.runs],
    workerRssBot: f.workerRss.bot,
    quick: f.quick,
    executions: f.executions,
    concurrency: f.concurrency,
    rounds: f.rounds,
    webhooks: f.webhooks.count,
    loadAverage: f.loadAverage,
  };
}

const serverLine = (l: ServerLoad) =>
  `${round1(l.rps)} req/s  p50 ${round1(l.p50Ms)} ms  p99 ${round1(l.p99Ms)} ms  CPU ${round3(l.cpuMsPerRequest)} ms/req  (${l.errors} errors; load generator ${round3(l.generatorCores)} cores, machine ${round3(l.machineBusyCores)} cores busy)`;

const drainLine = (d: DeliveryDrain) =>
  `${round1(drainRps(d))} deliveries/s  CPU ${round3(perDelivery(d))} ms/delivery  (${d.deliveries} in ${round1(d.windowMs)} ms)`;

const dist = (values: number[]) => {
  const d: Distribution = distribution(values);
  return `mean ${round1(d.mean)}  p50 ${round1(d.p50)}  p95 ${round1(d.p95)}  max ${round1(d.max)}`;
};

/** The human-readable part, printed before the JSON line. */
export function formatTable(f: BenchFigures, s: BenchSummary): string {
  const rows: Array<[string, string]> = [
    [
      'runs x concurrency',
      `${f.executions} x ${f.concurrency} in ${f.rounds} round(s); e2e keeps at most ${f.e2e.maxInFlight} in flight`,
    ],
    [
      'load average (1 min)',
      Object.entries(f.loadAverage)
        .map(([k, v]) => `${k} ${v}`)
        .join(', '),
    ],
    ['', ''],
    ['e2e throughput', `${s.e2eThroughput} executions/s  (${f.e2e.runs} in ${round1(f.e2e.windowMs)} ms)`],
    ['runner-only throughput', `${s.runnerThroughput} runs/s  (${f.runner.runs} in ${round1(f.runner.windowMs)} ms)`],
    ['bare throughput', `${s.bareThroughput} runs/s  (${f.bare.runs} in ${round1(f.bare.windowMs)} ms)`],
    ['ratio e2e / bare', `${s.ratio}  (ratio, target >= 1.1; runner-only / bare ${s.runnerRatio})`],
    ['  per core', `${s.workerRunsPerSecondPerCore} executions/s per core (${f.cores} cores)`],
    ['CPU ms per run: e2e', cpuLine(f.e2e)],
    ['                runner-only', cpuLine(f.runner)],
    ['                bare', cpuLine(f.bare)],
    [
      '  (bench overhead in e2e)',
      `${f.completionPolls} completion polls (plain pg, every 50 ms) and one fetch per trigger`,
    ],
    ['worker slots busy', `${round1(s.workerBusyShare * 100)} % of concurrency x window inside claimed -> completed`],
    ['e2e trigger -> completed ms', dist(f.e2e.latencyMs)],
    ['  trigger -> row created', dist(f.e2e.breakdownMs.triggerToCreated)],
    ['  row created -> claimed', dist(f.e2e.breakdownMs.createdToStarted)],
    ['  claimed -> completed', dist(f.e2e.breakdownMs.startedToCompleted)],
    ['runner-only run ms', dist(f.runner.runMs)],
    ['bare run ms', dist(f.bare.runMs)],
    [
      '  bare phases (mean ms)',
      Object.entries(f.bare.phasesMs)
        .map(([k, v]) => `${k} ${round1(mean(v))}`)
        .join(', '),
    ],
    [
      '  worker goto / steps (mean ms)',
      `goto ${round1(f.worker.gotoMs)}, steps ${f.worker.stepMs.map(round1).join(' / ')}`,
    ],
    ['  worker rows per run', `${round1(f.worker.rowsPerRun)} (step outputs + log lines)`],
    ['', ''],
    ['POST /bots/:id/executions', `botfleet ${serverLine(f.api.botfleet.trigger)}`],
    ['', `  (in the bench's process ${serverLine(f.api.botfleetInProcess.trigger)})`],
    ['', `bare     ${serverLine(f.api.bare.trigger)}`],
    ['  ratio botfleet / bare', `${s.apiTriggerRatio} (apiTriggerRatio)`],
    ['', `express  ${serverLine(f.api.bareExpress.trigger)}`],
    ['  ratio express / bare', `${s.apiTriggerExpressCeiling} (apiTriggerExpressCeiling: Express alone)`],
    [
      '  CPU botfleet / express',
      `${s.apiTriggerCpuOverExpress} (apiTriggerCpuOverExpress, target <= 1.25; ${s.apiTriggerCpuMsPerRequest} / ${s.apiTriggerExpressCpuMsPerRequest} ms/req, bare limit ${s.apiTriggerBareCpuMsPerRequest})`,
    ],
    ['GET /executions/:id', `botfleet ${serverLine(f.api.botfleet.get)}`],
    ['', `  (in the bench's process ${serverLine(f.api.botfleetInProcess.get)})`],
    ['', `bare     ${serverLine(f.api.bare.get)}`],
    ['  ratio botfleet / bare', `${s.apiGetRatio} (apiGetRatio)`],
    ['', `express  ${serverLine(f.api.bareExpress.get)}`],
    ['  ratio express / bare', `${s.apiGetExpressCeiling} (apiGetExpressCeiling: Express alone)`],
    [
      '  CPU botfleet / express',
      `${s.apiGetCpuOverExpress} (apiGetCpuOverExpress, target <= 1.25; ${s.apiGetCpuMsPerRequest} / ${s.apiGetExpressCpuMsPerRequest} ms/req, bare limit ${s.apiGetBareCpuMsPerRequest})`,
    ],
    [
      '  (autocannon)',
      `${f.api.connections} connections, ${f.api.seconds} s per window, worker stopped; botfleet = the launcher with ROLES=api (one process); bare = node:http + pg Pool + BullMQ in a child process, no auth; express = the bare handlers in a minimal Express app`,
    ],
    [
      'API_PROCESSES=1 / auto',
      `POST ${s.apiTriggerRpsOneProcess} / ${s.apiTriggerRpsAutoProcesses} req/s (x${s.apiTriggerProcessesRatio}), GET ${s.apiGetRpsOneProcess} / ${s.apiGetRpsAutoProcesses} req/s (x${s.apiGetProcessesRatio}): apiProcessesScaling x${s.apiProcessesScaling} (target >= 1.7 on two cores; ${f.cores} here, of which the load generator kept ${s.apiProcessesLoadGeneratorCores} busy; with one API process the machine was already ${s.apiOneProcessMachineBusyCores} cores busy)`,
    ],
    ['  POST, API_PROCESSES=1', serverLine(f.apiProcesses.one.trigger)],
    [`  POST, auto (${s.apiProcessesAuto})`, serverLine(f.apiProcesses.auto.trigger)],
    ['  GET, API_PROCESSES=1', serverLine(f.apiProcesses.one.get)],
    [`  GET, auto (${s.apiProcessesAuto})`, serverLine(f.apiProcesses.auto.get)],
    [
      '  (launcher, ROLES=api)',
      `same autocannon windows, in a process of its own; CPU is the launcher's whole process tree; autocannon shares the machine's cores`,
    ],
    ['', ''],
    [
      'webhooks e2e',
      `${s.webhookRps} deliveries/s  p50 ${s.webhookP50Ms} ms  p95 ${s.webhookP95Ms} ms  (${f.webhooks.count}, completion -> receipt)`,
    ],
    ['webhooks drain: role', drainLine(f.webhooks.role)],
    ['                batched', drainLine(f.webhooks.batched)],
    ['                one-at-a-time', drainLine(f.webhooks.bare)],
    [
      '  CPU ratio batched / role',
      `${s.webhookRatio} (webhookRatio, target >= 0.33; against the one-at-a-time loop ${s.webhookBareRatio}; concurrency ${f.webhooks.concurrency}; CPU is this process's, receiver included)`,
    ],
    ['', ''],
    ...(
      [
        ['executions', 'GET /bots/:id/executions', '(limit=20)'],
        ['artifacts', 'GET /executions/:id/artifacts', '(the newest run)'],
        ['results', 'GET /bots/:id/results', '(jsonl, newest 20)'],
      ] as const
    ).flatMap(([listed, label, what]): Array<[string, string]> => {
      const { small, large } = f.list.paths[listed];
      return [
        [
          label,
          `p50 ${round2(small.p50)} ms at ${f.list.smallRows} rows, ${round2(large.p50)} ms at ${f.list.largeRows} rows: ratio ${ratio(large.p50, small.p50)}`,
        ],
        [`  ${what}`, `p95 ${round1(small.p95)} / ${round1(large.p95)} ms`],
      ];
    }),
    [
      '  (all lists)',
      `ratios listLatencyRatio ${s.listLatencyRatio}, artifactsListLatencyRatio ${s.artifactsListLatencyRatio}, resultsExportLatencyRatio ${s.resultsExportLatencyRatio} (target about 1); ${f.list.requests} requests each, alternating; seeded in ${round1(f.list.seedSeconds)} s${f.quick ? '; --quick: 100,000 rows, not 1,000,000' : ''}`,
    ],
    [
      'worker RSS',
      `${s.workerRssAt100Mb} MB after ${f.workerRss.low.runs} runs, ${s.workerRssAt1000Mb} MB after ${f.workerRss.high.runs}: ratio ${s.workerRssRatio} (workerRssRatio, target about 1; heap ${f.workerRss.low.heapUsedMb} / ${f.workerRss.high.heapUsedMb} MB, after GC; ${f.workerRss.bot} bot; ${round1(f.workerRss.seconds)} s)`,
    ],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => (k === '' && v === '' ? '' : `${k.padEnd(width)}  ${v}`)).join('\n');
}
