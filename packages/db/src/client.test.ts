import { createPrismaClient, type PrismaClient } from './client';
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
