import { createPrismaClient, type PrismaClient } from '../client';
import { inTransaction } from './in-transaction';
import { createTestDatabase, type TestDatabase } from '../testing';

let db: TestDatabase;
let prisma: PrismaClient;

beforeAll(async () => {
  db = await createTestDatabase({ migrated: true });
  // One connection: a second transaction waits for the first to end.
  prisma = createPrismaClient(db.url, { poolSize: 1 });
});

afterAll(async () => {
  await prisma?.$disconnect();
  await db?.drop();
});

// Prisma's default maxWait (2 s) failed the second one: DATABASE_POOL_SIZE below a role's concurrency queues by design.
test('a transaction waits for a pool connection as long as the one before holds it', async () => {
  const holdSeconds = 3;
  const first = inTransaction(prisma, (tx) => tx.$executeRawUnsafe(`SELECT pg_sleep(${holdSeconds})`));
  const second = inTransaction(prisma, (tx) => tx.$queryRaw<{ one: number }[]>`SELECT 1 AS one`);
  await expect(first).resolves.toBeDefined();
  await expect(second).resolves.toEqual([{ one: 1 }]);
});
