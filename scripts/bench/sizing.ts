// Sizing figures for docs/operations.md: memory per concurrent run and runs per core, measured
// with the worker's own run function (runExecution + step interpreter, one Chromium, a fresh
// context per run) on the bench's 20-item catalogue page.
//
//   npx tsx scripts/bench/sizing.ts            # concurrency 1, 2, 4; 40 runs each
//   SIZING_RUNS=100 SIZING_CONCURRENCY=1,2,4,8 npx tsx scripts/bench/sizing.ts
//
// Memory is PSS (shared pages split among the processes sharing them) of this process plus its
// Chromium processes, sampled every 100 ms; per run = (peak under load - idle) / concurrency.
// Runs per core = runs / CPU seconds used (Node + Chromium), i.e. runs per second one fully busy
// core sustains. The last line printed is one JSON object.
import { createBrowserHost, resolveChromiumPath } from '@botfleet/runner';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { startFixtureSite } from './fixture-site';
import { runRunnerLoop } from './runner-loop';

/** PSS in MB of `root` and every descendant (Linux /proc; smaps_rollup needs kernel 4.14+). */
function treePssMb(root: number = process.pid): number {
  const parents = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Exited while listed.
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) for (const [pid, ppid] of parents) if (ppid === tree[i]) tree.push(pid);
  let kb = 0;
  for (const pid of tree) {
    try {
      const match = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
      kb += Number(match?.[1] ?? 0);
    } catch {
      // Exited while measured.
    }
  }
  return kb / 1024;
}

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

async function main(): Promise<void> {
  const runs = Number(process.env.SIZING_RUNS ?? 40);
  const levels = (process.env.SIZING_CONCURRENCY ?? '1,2,4').split(',').map(Number);
  const site = await startFixtureSite();
  const browserHost = createBrowserHost({
    executablePath: resolveChromiumPath({ explicitPath: process.env.CHROMIUM_PATH }),
  });
  try {
    // Warm: Chromium launched, one run done, so the idle figure is a worker waiting for work.
    await runRunnerLoop({ browserHost, url: site.url, runs: 2, concurrency: 1 });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const idleMb = treePssMb();
    const results = [];
    for (const concurrency of levels) {
      let peakMb = 0;
      const sampler = setInterval(() => (peakMb = Math.max(peakMb, treePssMb())), 100);
      const result = await runRunnerLoop({ browserHost, url: site.url, runs, concurrency });
      clearInterval(sampler);
      const cpuSeconds = (result.cpu.nodeMs + result.cpu.chromiumMs) / 1000;
      const row = {
        concurrency,
        runsPerSecond: round(runs / (result.windowMs / 1000)),
        runsPerCoreSecond: round(runs / cpuSeconds),
        coresBusy: round(cpuSeconds / (result.windowMs / 1000), 2),
        peakMb: Math.round(peakMb),
        mbPerConcurrentRun: Math.round((peakMb - idleMb) / concurrency),
      };
      results.push(row);
      process.stdout.write(`${JSON.stringify(row)}\n`);
    }
    process.stdout.write(`${JSON.stringify({ cores: cpus().length, idleMb: Math.round(idleMb), runs, results })}\n`);
  } finally {
    await browserHost.close();
    await site.server.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`sizing failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
