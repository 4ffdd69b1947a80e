// `npm run bench`: end-to-end throughput and latency of the execution path (HTTP trigger ->
// queue -> worker -> database) against a bare Playwright loop doing the same page work (and,
// between the two, the worker's run function alone, without queue or database), plus API and
// webhook load figures, each against its physical limit measured in the same run (a bare
// node:http + pg server for the API, a batched durable sender for webhooks), plus list
// latency at 1k vs 1M executions and the worker's RSS after 100 vs 1,000 runs, and the launcher's
// API throughput with API_PROCESSES=1 and auto side by side, and a results export of 100,000 runs as
// CSV and JSON Lines from an API process (its RSS before and at peak; 10,000 runs with --quick), and
// GET /bots page latency (search, tags, sorts) at 1,000 vs 100,000 bots with what the Bot.lastRunAt
// trigger costs a run's INSERT (scripts/bench/bot-search.ts, also runnable alone). The last line printed is one JSON
// object, so runs can be compared.
//
// `npm run bench -- --quick`: 12 runs per side in 1 round, 2 s API windows, 100 webhooks, 100,000
// executions instead of 1,000,000, RSS after 20 and 200 runs of a goto-only bot (about two minutes).
//
// Environment (all optional):
//   BENCH_EXECUTIONS   runs measured on each side: e2e, runner-only and bare (default 60; --quick 12)
//   BENCH_CONCURRENCY  worker concurrency and bare-loop concurrency (default WORKER_CONCURRENCY or 2)
//   BENCH_ROUNDS       interleave bare / runner-only / e2e in this many rounds of N/rounds runs
//                      each (default 3; --quick 1), so outside load on a shared machine hits every side alike;
//                      throughput is runs over summed windows (1 round: N / (last end - first start))
//   BENCH_WEBHOOKS     webhook deliveries for the webhook bench, and again for each of the role
//                      drain and the bare loop (default 300; --quick 100)
//   BENCH_API_SECONDS  duration of each autocannon run, POST and GET, botfleet and bare (default 5; --quick 2)
//   BENCH_API_CONNECTIONS  autocannon connections (default 10)
//   BENCH_WARMUP       unmeasured runs per worker slot on each side before measuring (default 2; --quick 1)
//   DELIVERY_CONCURRENCY  delivery role concurrency in the webhook bench (default 16)
//   BENCH_DATABASE_URL the bench database (default postgresql://postgres@127.0.0.1:5432/botfleet_bench);
//                      created and migrated by the bench, never the one `npm start` or `npm test` uses
//   REDIS_URL, CHROMIUM_PATH as for `npm start`.
//
// Plain Node with no dependencies: like start/test it runs before `npm install` on a fresh clone.
import { randomBytes } from 'node:crypto';
import { runTs, setup } from './setup.mjs';

setup();
const env = {
  ...process.env,
  DATABASE_URL: process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/botfleet_bench',
  // A prefix of its own per run: a bench never picks up (or obliterates) anyone else's jobs.
  QUEUE_PREFIX: `botfleet-bench-${randomBytes(4).toString('hex')}`,
  // Per-request and per-execution logging would be measured along with the work.
  LOG_LEVEL: 'silent',
};
process.exit(runTs('scripts/bench/main.ts', process.argv.slice(2), env));
