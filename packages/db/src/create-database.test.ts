import { Client } from 'pg';
import { createDatabaseIfMissing, DatabaseMissingError } from './create-database';
import { createTestDatabase, reserveTestDatabase, type TestDatabase } from './testing';

const databases: TestDatabase[] = [];
const reserve = () => {
  const database = reserveTestDatabase();
  databases.push(database);
  return database;
};

afterAll(() => Promise.all(databases.map((database) => database.drop())));

/** The databases every pg Client opened during `work` connected to. */
async function databasesConnectedTo(work: () => Promise<unknown>): Promise<string[]> {
  const connect = jest.spyOn(Client.prototype, 'connect');
  try {
    await work();
    return connect.mock.contexts.map((client) => (client as Client).database ?? '?');
  } finally {
    connect.mockRestore();
  }
}

test('concurrent callers all succeed and exactly one creates the database', async () => {
  const database = reserve();
  const results = await Promise.all([1, 2, 3].map(() => createDatabaseIfMissing(database.url)));
  expect(results.filter(Boolean)).toHaveLength(1);
  expect(await createDatabaseIfMissing(database.url)).toBe(false);

  const client = new Client({ connectionString: database.url });
  await client.connect();
  expect((await client.query('SELECT current_database() AS db')).rows[0].db).toBe(database.name);
  await client.end();
});

test('an existing database is only connected to: never the server’s `postgres` database', async () => {
  const database = await createTestDatabase();
  databases.push(database);
  let created: boolean | undefined;
  const connected = await databasesConnectedTo(async () => (created = await createDatabaseIfMissing(database.url)));
  expect(created).toBe(false);
  expect(connected).toEqual([database.name]);
});

test('a missing database is created through `postgres` when allowed', async () => {
  const database = reserve();
  const connected = await databasesConnectedTo(() => createDatabaseIfMissing(database.url, { allowed: true }));
  expect(connected).toEqual([database.name, 'postgres']);
  expect(await createDatabaseIfMissing(database.url)).toBe(false);
});

test('a missing database that may not be created fails naming it and DATABASE_CREATE, creating nothing', async () => {
  const database = reserve();
  let failure: unknown;
  const connected = await databasesConnectedTo(() =>
    createDatabaseIfMissing(database.url, { allowed: false }).catch((error: unknown) => (failure = error)),
  );
  expect(failure).toBeInstanceOf(DatabaseMissingError);
  expect((failure as Error).message).toMatch(
    new RegExp(`"${database.name}" does not exist and DATABASE_CREATE is false`),
  );
  expect(connected).toEqual([database.name]);
  const probe = new Client({ connectionString: database.url });
  await expect(probe.connect()).rejects.toMatchObject({ code: '3D000' });
});
