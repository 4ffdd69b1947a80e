import { createPrismaClient, type PrismaClient } from './client';
import { findBotForTrigger } from './repositories';
import { createTestDatabase, type TestDatabase } from './testing';

let db: TestDatabase;
let prisma: PrismaClient;

beforeAll(async () => {
  db = await createTestDatabase({ migrated: true });
  prisma = createPrismaClient(db.url, { poolSize: 2 });
});

afterAll(async () => {
  await prisma?.$disconnect();
  await db?.drop();
});

test('writes and reads an Organization and a Bot through the pg adapter', async () => {
  await prisma.organization.create({ data: { id: 'org_1', slug: 'acme', name: 'Acme' } });
  await prisma.bot.create({
    data: { id: 'bot_1', organizationId: 'org_1', name: 'Prices', targetUrl: 'https://example.com' },
  });

  const bot = await prisma.bot.findUniqueOrThrow({ where: { id: 'bot_1' }, include: { organization: true } });
  expect(bot).toMatchObject({ name: 'Prices', kind: 'extraction', status: 'active', tags: [], description: null });
  expect(bot.organization.slug).toBe('acme');
  expect(bot.createdAt).toBeInstanceOf(Date);
  expect(bot.updatedAt).toBeInstanceOf(Date);
});

test('prepares each query text once per connection and reuses it', async () => {
  const single = createPrismaClient(db.url, { poolSize: 1 });
  try {
    for (let i = 0; i < 3; i++) await single.organization.findMany({ where: { slug: `none-${i}` } });
    // One connection, so this sees the statements the loop above prepared on it.
    const prepared = await single.$queryRaw<{ name: string; calls: bigint }[]>`
      SELECT name, generic_plans + custom_plans AS calls FROM pg_prepared_statements WHERE name LIKE 'bf_%'`;
    const names = prepared.map((p) => p.name);
    expect(new Set(names).size).toBe(names.length);
    // The findMany text ran three times under one name: planned per call, parsed once.
    expect(prepared.some((p) => Number(p.calls) >= 3)).toBe(true);
  } finally {
    await single.$disconnect();
  }
});

test('with preparedStatements false, neither Prisma nor the hot statements name a statement', async () => {
  const single = createPrismaClient(db.url, {
    poolSize: 1,
    preparedStatements: false,
    applicationName: 'botfleet test',
  });
  try {
    await single.organization.findMany({ where: { slug: 'none' } });
    // One of the hot statements (queryPrepared), sent to pg directly.
    expect(await findBotForTrigger(single, 'org_1', 'bot_none')).toBeNull();
    const prepared = await single.$queryRaw<{ name: string }[]>`SELECT name FROM pg_prepared_statements`;
    expect(prepared).toEqual([]);
    const [self] = await single.$queryRaw<
      { name: string }[]
    >`SELECT application_name AS name FROM pg_stat_activity WHERE pid = pg_backend_pid()`;
    expect(self?.name).toBe('botfleet test');
  } finally {
    await single.$disconnect();
  }
});
