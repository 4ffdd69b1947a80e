import { createApiKey, createBot, deleteOrganization, ensureOrganization, type PrismaClient } from '@botfleet/db';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { distribution, type Distribution } from './stats';

/** The listings timed, each against a small and a large organization. */
export type ListedPath = 'executions' | 'artifacts' | 'results';

export interface ListLatencyResult {
  smallRows: number;
  largeRows: number;
  /** Seconds the seeding (one INSERT ... SELECT generate_series per table and organization + ANALYZE) took. */
  seedSeconds: number;
  requests: number;
  /**
   * `GET /bots/:botId/executions?limit=20` ms, per organization size (kept as `small`/`large`:
   * the bench's listLatencyRatio has always been this listing's).
   */
  small: Distribution;
  large: Distribution;
  /**
   * Every listing's ms per organization size: the executions list above, the newest run's
   * artifacts (`GET /executions/:id/artifacts`, one artifact per seeded run) and the results
   * export of the newest 20 runs (`GET /bots/:botId/results?format=jsonl&from=`).
   */
  paths: Record<ListedPath, { small: Distribution; large: Distribution }>;
}

/**
 * Seeds `rows` completed executions of one bot, each with a small extract and one screenshot
 * artifact, in one statement per table. Bench tooling, not product code: a raw pg client so a
 * million rows take seconds, not a million Prisma calls. Ids have newId's shape (`exe_` + 26
 * characters of its alphabet: md5 hex digits are all in it); createdAt goes back one second per
 * row, so the newest page is the first rows. Returns the newest run's id and completedAt.
 */
async function seedExecutions(
  client: Client,
  input: { organizationId: string; botId: string; rows: number },
): Promise<{ newestExecutionId: string; newestCompletedAt: Date }> {
  const salt = randomBytes(8).toString('hex');
  const seeded = await client.query<{ id: string; completedAt: Date }>(
    `WITH runs AS (
       INSERT INTO "Execution" (id, "botId", "organizationId", status, trigger, params, "extractedData", "createdAt", "startedAt", "completedAt", "updatedAt")
       SELECT 'exe_' || substr(md5($4 || i::text), 1, 26), $1, $2, 'completed', 'api', '{}', jsonb_build_object('n', i, 'name', 'item ' || i),
              now() - i * interval '1 second', now() - i * interval '1 second', now() - i * interval '1 second' + interval '700 milliseconds', now()
         FROM generate_series(1, $3::int) AS i
       RETURNING id, "completedAt"
     ), artifacts AS (
       INSERT INTO "Artifact" (id, "executionId", kind, "contentType", data, bytes)
       SELECT 'art_' || substr(md5('a' || id), 1, 26), id, 'screenshot', 'image/png', '\\x89504e47'::bytea, 4 FROM runs
     )
     SELECT id, "completedAt" FROM runs ORDER BY "completedAt" DESC LIMIT 1`,
    [input.botId, input.organizationId, input.rows, salt],
  );
  const newest = seeded.rows[0];
  if (!newest) throw new Error('list latency: nothing was seeded');
  return { newestExecutionId: newest.id, newestCompletedAt: newest.completedAt };
}

interface ListedSide {
  botId: string;
  authHeader: string;
  newestExecutionId: string;
  newestCompletedAt: Date;
}

async function createListedBot(db: PrismaClient, label: string) {
  const org = await ensureOrganization(db, `bench-list-${label}-${randomBytes(4).toString('hex')}`);
  const { key } = await createApiKey(db, { organizationId: org.id, name: 'bench list', permission: 'read' });
  const bot = await createBot(db, org.id, {
    name: `list ${label}`,
    targetUrl: 'https://bench.example',
    kind: 'extraction',
    tags: [],
  });
  return { organizationId: org.id, botId: bot.id, authHeader: `Bearer ${key}` };
}

/**
 * Is the newest page as fast with a million executions as with a thousand? Times each listing
 * a person pages through a bot's history with (its runs, a run's artifacts, an export of its
 * newest results), alternating between the two organizations so outside load hits both alike.
 * The organizations (and their rows) are deleted by `cleanup`.
 */
export async function measureListLatency(options: {
  db: PrismaClient;
  databaseUrl: string;
  /** botfleet's API, e.g. http://127.0.0.1:1234/api/v1 */
  baseUrl: string;
  smallRows: number;
  largeRows: number;
  requests: number;
  /** Registers the organizations' deletion with the bench's cleanup. */
  cleanup: (name: string, run: () => Promise<unknown>) => void;
}): Promise<ListLatencyResult> {
  const small = await createListedBot(options.db, 'small');
  options.cleanup('list organization (small)', () => deleteOrganization(options.db, small.organizationId));
  const large = await createListedBot(options.db, 'large');
  options.cleanup('list organization (large)', () => deleteOrganization(options.db, large.organizationId));

  const client = new Client({ connectionString: options.databaseUrl });
  await client.connect();
  const seedStarted = performance.now();
  let sides: Array<ListedSide>;
  try {
    const smallNewest = await seedExecutions(client, { ...small, rows: options.smallRows });
    const largeNewest = await seedExecutions(client, { ...large, rows: options.largeRows });
    // As autovacuum would shortly after; a plan made without statistics would measure nothing real.
    await client.query('ANALYZE "Execution"');
    await client.query('ANALYZE "Artifact"');
    sides = [
      { ...small, ...smallNewest },
      { ...large, ...largeNewest },
    ];
  } finally {
    await client.end();
  }
  const seedSeconds = (performance.now() - seedStarted) / 1000;

  const listings: Record<ListedPath, (side: ListedSide) => { path: string; records: number }> = {
    executions: (side) => ({ path: `/bots/${side.botId}/executions?limit=20`, records: 20 }),
    artifacts: (side) => ({ path: `/executions/${side.newestExecutionId}/artifacts`, records: 1 }),
    // The newest 20 runs: completedAt one second apart, `from` inclusive.
    results: (side) => ({
      path: `/bots/${side.botId}/results?format=jsonl&from=${side.newestCompletedAt.getTime() - 19_500}`,
      records: 20,
    }),
  };
  const time = async (listed: ListedPath, side: ListedSide): Promise<number> => {
    const { path, records } = listings[listed](side);
    const started = performance.now();
    const res = await fetch(`${options.baseUrl}${path}`, { headers: { authorization: side.authHeader } });
    const body = await res.text();
    const ms = performance.now() - started;
    const count =
      listed === 'results'
        ? body.split('\n').filter(Boolean).length
        : (JSON.parse(body) as { data?: unknown[] }).data?.length;
    if (res.status !== 200 || count !== records)
      throw new Error(`list ${listed}: HTTP ${res.status}, ${count} records`);
    return ms;
  };
  const [smallSide, largeSide] = sides as [ListedSide, ListedSide];
  const paths = {} as ListLatencyResult['paths'];
  for (const listed of Object.keys(listings) as ListedPath[]) {
    // Warm-up: connections, the API key cache, prepared plans.
    for (let i = 0; i < 10; i++) {
      await time(listed, smallSide);
      await time(listed, largeSide);
    }
    const smallMs: number[] = [];
    const largeMs: number[] = [];
    for (let i = 0; i < options.requests; i++) {
      smallMs.push(await time(listed, smallSide));
      largeMs.push(await time(listed, largeSide));
    }
    paths[listed] = { small: distribution(smallMs), large: distribution(largeMs) };
  }
  return {
    smallRows: options.smallRows,
    largeRows: options.largeRows,
    seedSeconds,
    requests: options.requests,
    small: paths.executions.small,
    large: paths.executions.large,
    paths,
  };
}
