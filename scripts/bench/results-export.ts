// Results export (docs/results-export.md): a bot with 100,000 completed runs exported as CSV and
// JSON Lines from a real API process (the launcher serving the api role, a child process), with
// that process's RSS before the export and its peak during it, rows/s and bytes. A section of
// `npm run bench`; also runnable alone:
//
//   npx tsx scripts/bench/results-export.ts            # 100,000 runs
//   npx tsx scripts/bench/results-export.ts --quick    # 10,000 runs
//
// Alone it uses BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/botfleet_bench),
// creates and migrates it, and deletes what it seeded. BENCH_EXPORT_ROWS overrides the run count.
import {
  createApiKey,
  createBot,
  createDatabaseIfMissing,
  createPrismaClient,
  deleteOrganization,
  ensureOrganization,
  findMigrationsDir,
  migrate,
  type PrismaClient,
} from '@botfleet/db';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Client } from 'pg';
import { startLauncher } from './api-processes';
import { runAsCommand } from './run-as-command';

export interface ExportRun {
  format: 'csv' | 'jsonl';
  records: number;
  bytes: number;
  seconds: number;
  rowsPerSecond: number;
  /** The API process's RSS (MB) right before the request, and the highest sampled during it. */
  rssBeforeMb: number;
  rssPeakMb: number;
}

export interface ResultsExportResult {
  rows: number;
  /** Seconds the one INSERT ... SELECT generate_series (and ANALYZE) took. */
  seedSeconds: number;
  runs: ExportRun[];
}

/** VmRSS of a process, in MB (Linux /proc). */
function rssMb(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? 0) / 1024;
}

/**
 * `rows` completed runs of one bot, each with about 400 bytes of data shaped like a scrape (a
 * title, a price, a nested object, a list of two items), so CSV has nested and indexed columns.
 */
async function seedRuns(
  databaseUrl: string,
  input: { organizationId: string; botId: string; rows: number },
): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO "Execution" (id, "botId", "organizationId", status, trigger, params, "createdAt", "startedAt", "completedAt", "updatedAt", "extractedData")
       SELECT 'exe_' || substr(md5($4 || i::text), 1, 26), $1, $2, 'completed', 'api', '{}',
              now() - i * interval '1 second', now() - i * interval '1 second',
              now() - i * interval '1 second' + interval '700 milliseconds', now(),
              jsonb_build_object(
                'title', 'Product ' || i || ', "special" edition',
                'price', round((i % 997) * 1.37, 2),
                'inStock', i % 3 <> 0,
                'seller', jsonb_build_object('name', 'Shop ' || (i % 50), 'rating', (i % 5) + 0.5),
                'url', 'https://shop.example/products/' || i,
                'variants', jsonb_build_array(
                  jsonb_build_object('sku', 'A-' || i, 'size', 'M'),
                  jsonb_build_object('sku', 'B-' || i, 'size', 'L')))
         FROM generate_series(1, $3::int) AS i`,
      [input.botId, input.organizationId, input.rows, randomBytes(8).toString('hex')],
    );
    await client.query('ANALYZE "Execution"');
  } finally {
    await client.end();
  }
}

/** Reads the export to the end without keeping it, counting records and bytes, sampling the API's RSS. */
async function timeExport(
  url: string,
  authHeader: string,
  pid: number,
  format: ExportRun['format'],
): Promise<ExportRun> {
  const rssBeforeMb = rssMb(pid);
  let rssPeakMb = rssBeforeMb;
  const sampler = setInterval(() => {
    rssPeakMb = Math.max(rssPeakMb, rssMb(pid));
  }, 20);
  const started = performance.now();
  let bytes = 0;
  let newlines = 0;
  try {
    const res = await fetch(`${url}&format=${format}`, { headers: { authorization: authHeader } });
    if (res.status !== 200 || !res.body) throw new Error(`export (${format}): HTTP ${res.status} ${await res.text()}`);
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.length;
      for (let i = value.indexOf(10); i !== -1; i = value.indexOf(10, i + 1)) newlines += 1;
    }
  } finally {
    clearInterval(sampler);
  }
  const seconds = (performance.now() - started) / 1000;
  rssPeakMb = Math.max(rssPeakMb, rssMb(pid));
  // CSV's first line is the header; JSON Lines has one line per record.
  const records = format === 'csv' ? newlines - 1 : newlines;
  return { format, records, bytes, seconds, rowsPerSecond: records / seconds, rssBeforeMb, rssPeakMb };
}

/**
 * Seeds the runs, starts the launcher (ROLES=api, one API process) on its own queue prefix, warms
 * it with a small export, then exports everything as CSV (its two passes: columns, then rows) and
 * as JSON Lines. The seeded organization is deleted by `cleanup`.
 */
export async function measureResultsExport(options: {
  db: PrismaClient;
  databaseUrl: string;
  redisUrl: string;
  queuePrefix: string;
  rows: number;
  cleanup: (name: string, run: () => Promise<unknown>) => void;
}): Promise<ResultsExportResult> {
  const org = await ensureOrganization(options.db, `bench-export-${randomBytes(4).toString('hex')}`);
  options.cleanup('results export organization', () => deleteOrganization(options.db, org.id));
  const { key } = await createApiKey(options.db, { organizationId: org.id, name: 'bench export', permission: 'read' });
  const bot = await createBot(options.db, org.id, {
    name: 'bench export',
    targetUrl: 'https://shop.example',
    kind: 'extraction',
    tags: [],
  });
  const seedStarted = performance.now();
  await seedRuns(options.databaseUrl, { organizationId: org.id, botId: bot.id, rows: options.rows });
  const seedSeconds = (performance.now() - seedStarted) / 1000;

  const launcher = await startLauncher({
    apiProcesses: '1',
    databaseUrl: options.databaseUrl,
    redisUrl: options.redisUrl,
    queuePrefix: `${options.queuePrefix}-export`,
  });
  try {
    const authHeader = `Bearer ${key}`;
    const url = `${launcher.baseUrl}/bots/${bot.id}/results?`;
    // Warm-up: the key cache, the route's code, prepared statements; the first 1,000 runs only.
    const firstThousand = new Date(Date.now() - (options.rows - 1_000) * 1000).toISOString();
    await timeExport(`${url}to=${encodeURIComponent(firstThousand)}`, authHeader, launcher.pid, 'csv');
    const runs: ExportRun[] = [];
    for (const format of ['csv', 'jsonl'] as const) runs.push(await timeExport(url, authHeader, launcher.pid, format));
    for (const run of runs) {
      if (run.records !== options.rows)
        throw new Error(`${run.format} export had ${run.records} of ${options.rows} records`);
    }
    return { rows: options.rows, seedSeconds, runs };
  } finally {
    await launcher.stop();
  }
}

export function formatResultsExport(result: ResultsExportResult): string {
  const mb = (n: number) => n.toFixed(1);
  const lines = [
    `Results export: ${result.rows.toLocaleString('en-US')} completed runs of one bot, from one API process (seeded in ${result.seedSeconds.toFixed(1)} s)`,
    'format  records   bytes (MB)  seconds  rows/s    RSS before (MB)  RSS peak (MB)  peak - before',
    ...result.runs.map((run) =>
      [
        run.format.padEnd(7),
        String(run.records).padEnd(9),
        mb(run.bytes / 1024 / 1024).padEnd(11),
        run.seconds.toFixed(2).padEnd(8),
        String(Math.round(run.rowsPerSecond)).padEnd(9),
        mb(run.rssBeforeMb).padEnd(16),
        mb(run.rssPeakMb).padEnd(14),
        mb(run.rssPeakMb - run.rssBeforeMb),
      ].join(' '),
    ),
  ];
  return lines.join('\n');
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const unknown = argv.filter((arg) => arg !== '--quick');
  if (unknown.length > 0) throw new Error(`unknown argument(s): ${unknown.join(' ')} (only --quick)`);
  const rows = Number(process.env.BENCH_EXPORT_ROWS ?? (argv.includes('--quick') ? 10_000 : 100_000));
  if (!Number.isInteger(rows) || rows < 2_000)
    throw new Error('BENCH_EXPORT_ROWS must be an integer of at least 2,000');
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/botfleet_bench';
  await createDatabaseIfMissing(databaseUrl);
  await migrate(databaseUrl, { migrationsDir: findMigrationsDir(__dirname) });
  const db = createPrismaClient(databaseUrl, { poolSize: 2 });
  const undo: Array<() => Promise<unknown>> = [];
  try {
    const result = await measureResultsExport({
      db,
      databaseUrl,
      redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      queuePrefix: `botfleet-bench-${randomBytes(4).toString('hex')}`,
      rows,
      cleanup: (_name, run) => undo.push(run),
    });
    process.stdout.write(`${formatResultsExport(result)}\n${JSON.stringify(result)}\n`);
  } finally {
    for (const run of undo.reverse()) await run();
    await db.$disconnect();
  }
}

if (require.main === module) runAsCommand(main);
