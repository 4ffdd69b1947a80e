import type { LoadResult } from './api-load';
import type { CpuUse } from './process-tree-cpu';
import type { Measurements } from './rounds';
import { distribution, mean, round1, round2, round3, throughput, type Distribution } from './stats';
import type { WebhooksBenchResult } from './webhooks-bench';
import type { WorkerProfile } from './worker-profile';

export interface BenchFigures extends Measurements {
  executions: number;
  concurrency: number;
  rounds: number;
  /** Queries the bench made to notice completions (warm-up included); their CPU counts as e2e. */
  completionPolls: number;
  worker: WorkerProfile;
  api: { trigger: LoadResult; get: LoadResult; seconds: number; connections: number };
  webhooks: WebhooksBenchResult & { count: number };
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

export function summarize(f: BenchFigures): BenchSummary {
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
    apiTriggerRps: round1(f.api.trigger.rps),
    apiTriggerP99Ms: round1(f.api.trigger.p99Ms),
    apiGetRps: round1(f.api.get.rps),
    apiGetP99Ms: round1(f.api.get.p99Ms),
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
    executions: f.executions,
    concurrency: f.concurrency,
    rounds: f.rounds,
    webhooks: f.webhooks.count,
    loadAverage: f.loadAverage,
  };
}

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
    ['ratio e2e / bare', `${s.ratio}  (runner-only / bare ${s.runnerRatio})`],
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
    [
      'POST /bots/:id/executions',
      `${s.apiTriggerRps} req/s  p50 ${round1(f.api.trigger.p50Ms)} ms  p99 ${s.apiTriggerP99Ms} ms  (${f.api.trigger.errors} errors)`,
    ],
    [
      'GET /executions/:id',
      `${s.apiGetRps} req/s  p50 ${round1(f.api.get.p50Ms)} ms  p99 ${s.apiGetP99Ms} ms  (${f.api.get.errors} errors)`,
    ],
    ['  (autocannon)', `${f.api.connections} connections, ${f.api.seconds} s each, worker stopped`],
    [
      'webhooks',
      `${s.webhookRps} deliveries/s  p50 ${s.webhookP50Ms} ms  p95 ${s.webhookP95Ms} ms  (${f.webhooks.count})`,
    ],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => (k === '' ? '' : `${k.padEnd(width)}  ${v}`)).join('\n');
}
