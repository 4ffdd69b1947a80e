import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { findMigrationsDir } from '../migrations-dir';
import { createTestDatabase, type TestDatabase } from '../testing';
import { actualShape } from './actual-shape';
import type { DbShape } from './db-shape';
import { expectedShape } from './expected-shape';
import { getDmmf } from './prisma-dmmf';

// The hand-written migration SQL must create exactly what `prisma migrate dev` would for
// schema.prisma. The schema engine cannot run here, so schema.prisma is read with Prisma's own
// parser (wasm) and compared with what PostgreSQL's catalog reports after migrating.
const schemaFile = path.join(path.dirname(findMigrationsDir(__dirname)), 'schema.prisma');
const schemaText = readFileSync(schemaFile, 'utf8');

let db: TestDatabase;
let client: Client;
let actual: DbShape;

beforeAll(async () => {
  db = await createTestDatabase({ migrated: true });
  client = new Client({ connectionString: db.url });
  await client.connect();
  actual = await actualShape(client);
});

afterAll(async () => {
  await client?.end();
  await db?.drop();
});

test('the migrated database matches prisma/schema.prisma', () => {
  const expected = expectedShape(getDmmf(schemaText));
  expect(Object.keys(expected.tables).length).toBeGreaterThan(0);
  expect(actual).toEqual(expected);
});

// The check is only worth something if it notices drift; these prove it does, from each side.
describe('the comparison notices a difference', () => {
  test.each([
    ['a column added to the schema', 'targetUrl      String', 'targetUrl      String\n  extra String?'],
    ['a column removed from the schema', 'description    String?', ''],
    ['a column made optional in the schema', 'targetUrl      String', 'targetUrl      String?'],
    ['an enum value added to the schema', 'paused\n', 'paused\n  archived\n'],
    ['an enum value removed from the schema', '  paused\n', ''],
    [
      'an index added to the schema',
      '@@index([active, nextRunAt])',
      '@@index([active, nextRunAt])\n  @@index([lastRunAt])',
    ],
    ['an index removed from the schema', '@@index([active, nextRunAt])', ''],
    ['an index sort order changed in the schema', 'completedAt(sort: Desc)', 'completedAt'],
    ['a unique constraint removed from the schema', '@@unique([botId, index])', ''],
    [
      'a cascade removed from the schema',
      'references: [id], onDelete: Cascade)\n\n  @@unique([botId, index])',
      'references: [id])\n\n  @@unique([botId, index])',
    ],
  ])('%s', (_label, from, to) => {
    expect(schemaText).toContain(from);
    const edited = schemaText.replace(from, to);
    expect(expectedShape(getDmmf(edited))).not.toEqual(actual);
  });

  const expected = (): DbShape => expectedShape(getDmmf(schemaText));

  test.each([
    ['a column added to the database', 'ALTER TABLE "Bot" ADD COLUMN "extra" TEXT'],
    ['a column removed from the database', 'ALTER TABLE "Bot" DROP COLUMN "description"'],
    ['a NOT NULL dropped in the database', 'ALTER TABLE "Bot" ALTER COLUMN "targetUrl" DROP NOT NULL'],
    ['an enum value added in the database', `ALTER TYPE "BotStatus" ADD VALUE 'archived'`],
    ['an index added to the database', 'CREATE INDEX "Schedule_nextRunAt_idx" ON "Schedule"("nextRunAt")'],
    ['an index removed from the database', 'DROP INDEX "Schedule_active_nextRunAt_idx"'],
    ['a unique index removed from the database', 'DROP INDEX "RecordedStep_botId_index_key"'],
    ['an extra table in the database', 'CREATE TABLE "Extra" ("id" TEXT PRIMARY KEY)'],
  ])('%s', async (_label, ddl) => {
    // PostgreSQL DDL is transactional: the change is seen inside and rolled back after.
    await client.query('BEGIN');
    try {
      await client.query(ddl);
      expect(await actualShape(client)).not.toEqual(expected());
    } finally {
      await client.query('ROLLBACK');
    }
  });

  test('an enum value removed from the database', async () => {
    // Enum values cannot be dropped in place; recreate the type without one.
    await client.query('BEGIN');
    try {
      await client.query(`ALTER TYPE "BotStatus" RENAME TO "BotStatus_old"`);
      await client.query(`CREATE TYPE "BotStatus" AS ENUM ('active')`);
      await client.query(`ALTER TABLE "Bot" ALTER COLUMN "status" DROP DEFAULT`);
      await client.query(`ALTER TABLE "Bot" ALTER COLUMN "status" TYPE "BotStatus" USING "status"::text::"BotStatus"`);
      await client.query(`ALTER TABLE "Bot" ALTER COLUMN "status" SET DEFAULT 'active'`);
      await client.query(`DROP TYPE "BotStatus_old"`);
      expect(await actualShape(client)).not.toEqual(expected());
    } finally {
      await client.query('ROLLBACK');
    }
  });
});
