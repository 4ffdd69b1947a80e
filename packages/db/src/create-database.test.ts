import { Client } from 'pg';
import { withDatabase } from './connection-url';
import { createDatabaseIfMissing, quoteIdentifier } from './create-database';
import { TEST_SERVER_URL } from './test-database';

const name = `botfleet_t_${Math.random().toString(36).slice(2, 10)}`;
const url = withDatabase(TEST_SERVER_URL, name);

afterAll(async () => {
  const client = new Client({ connectionString: TEST_SERVER_URL });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`);
  await client.end();
});

test('concurrent callers all succeed and exactly one creates the database', async () => {
  const results = await Promise.all([1, 2, 3].map(() => createDatabaseIfMissing(url)));
  expect(results.filter(Boolean)).toHaveLength(1);
  expect(await createDatabaseIfMissing(url)).toBe(false);

  const client = new Client({ connectionString: url });
  await client.connect();
  expect((await client.query('SELECT current_database() AS db')).rows[0].db).toBe(name);
  await client.end();
});
