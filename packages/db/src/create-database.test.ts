import { Client } from 'pg';
import { createDatabaseIfMissing } from './create-database';
import { reserveTestDatabase } from './testing';

const database = reserveTestDatabase();

afterAll(() => database.drop());

test('concurrent callers all succeed and exactly one creates the database', async () => {
  const results = await Promise.all([1, 2, 3].map(() => createDatabaseIfMissing(database.url)));
  expect(results.filter(Boolean)).toHaveLength(1);
  expect(await createDatabaseIfMissing(database.url)).toBe(false);

  const client = new Client({ connectionString: database.url });
  await client.connect();
  expect((await client.query('SELECT current_database() AS db')).rows[0].db).toBe(database.name);
  await client.end();
});
