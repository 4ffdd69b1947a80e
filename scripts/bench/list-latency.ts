import { createApiKey, createBot, deleteOrganization, ensureOrganization, type PrismaClient } from '@botfleet/db';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { distribution, type Distribution } from './stats';

/** One listing timed against a small and a large organization. */
export interface ListLatencyResult {
  smallRows: number;
  largeRows: number;
  /** Seconds the seeding (one INSERT ... SELECT generate_series per organization + ANALYZE) took. */
  seedSeconds: number;
  requests: number;
  /** `GET /bots/:botId/executions?limit=20` ms, per organization size. */
  small: Distribution;
  large: Distribution;
}

/**
 * Seeds `rows` executions of one bot in one statement. Bench tooling, not product code: a raw pg
 * client so a million rows take seconds, not a million Prisma calls. Ids have newId's shape
 * (`exe_` + 26 characters of its alphabet: md5 hex digits are all in it); createdAt goes back
 * one second per row, so the newest page is the first rows.
 */
async function seedExecutions(
  client: Client,
  input: { organizationId: string; botId: string; rows: number },
): Promise<void> {
  const salt = randomBytes(8).toString('hex');
  await client.query(
    `INSERT INTO "Execution" (id, "botId", "organizationId", status, trigger, params, "createdAt", "startedAt", "completedAt", "updatedAt")
     SELECT 'exe_' || substr(md5($4 || i::text), 1, 26), $1, $2, 'completed', 'api', '{}',
            now() - i * interval '1 second', now() - i * interval '1 second', now() - i * interval '1 second' + interval '700 milliseconds', now()
       FROM generate_series(1, $3::int) AS i`,
    [input.botId, input.organizationId, input.rows, salt],
  );
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
 * Is the newest page as fast with a million executions as with a thousand? There is no
 * organization-wide listing (`GET /executions`) in the API, so this times the bot's listing,
 * `GET /bots/:botId/executions?limit=20`, alternating between the two organizations so outside
 * load hits both alike. The organizations (and their rows) are deleted by `cleanup`.
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
  try {
    await seedExecutions(client, { ...small, rows: options.smallRows });
    await seedExecutions(client, { ...large, rows: options.largeRows });
    // As autovacuum would shortly after; a plan made without statistics would measure nothing real.
    await client.query('ANALYZE "Execution"');
  } finally {
    await client.end();
  }
  const seedSeconds = (performance.now() - seedStarted) / 1000;

  const time = async (side: { botId: string; authHeader: string }): Promise<number> => {
    const started = performance.now();
    const res = await fetch(`${options.baseUrl}/bots/${side.botId}/executions?limit=20`, {
      headers: { authorization: side.authHeader },
    });
    const page = (await res.json()) as { data?: unknown[] };
    const ms = performance.now() - started;
    if (res.status !== 200 || page.data?.length !== 20) throw new Error(`list executions: HTTP ${res.status}`);
    return ms;
  };
  // Warm-up: connections, the API key cache, prepared plans.
  for (let i = 0; i < 10; i++) {
    await time(small);
    await time(large);
  }
  const smallMs: number[] = [];
  const largeMs: number[] = [];
  for (let i = 0; i < options.requests; i++) {
    smallMs.push(await time(small));
    largeMs.push(await time(large));
  }
  return {
    smallRows: options.smallRows,
    largeRows: options.largeRows,
    seedSeconds,
    requests: options.requests,
    small: distribution(smallMs),
    large: distribution(largeMs),
  };
}
