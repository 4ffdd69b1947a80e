import request from 'supertest';
import { startCliApiFixture, type CliApiFixture } from './testing';

/*
 * `botfleet bots list` with search, tags, status and sort (docs/bot-search.md) as a script runs
 * it: a child process against the real API, reading text and --json output and exit codes.
 */

let f: CliApiFixture;
beforeAll(async () => {
  f = await startCliApiFixture('search');
});
afterAll(async () => {
  await f?.close();
});

const botfleet = (args: string[], key?: string) => f.cli.run(args, { key });

/** The arguments of the "More:" line, unquoted (the test's values need no shell quoting). */
const moreArgs = (stdout: string) => /^More: botfleet (.+)$/m.exec(stdout)?.[1]?.split(' ') ?? null;

it('searches, filters by every tag given and status, sorts, shows the last run and pages with the same filters', async () => {
  const ran = await f.api.newBot(f.org, { name: 'beta prices', tags: ['shop', 'daily'] });
  const never = await f.api.newBot(f.org, { name: 'alpha prices', tags: ['shop', 'daily'] });
  await f.api.newBot(f.org, { name: 'gamma prices', tags: ['shop'] });
  await f.api.newBot(f.org, { name: 'delta news', tags: ['shop', 'daily'] });
  const trigger = await request(f.api.app).post(`/api/v1/bots/${ran}/executions`).set(f.org.auth('write')).send({});
  expect(trigger.status).toBe(202);

  const first = await botfleet(
    [
      'bots',
      'list',
      '--q',
      'PRICES',
      '--tag',
      'shop',
      '--tag',
      'daily',
      '--status',
      'active',
      '--sort',
      'name',
      '--limit',
      '1',
    ],
    f.org.keys.read,
  );
  expect(first.code).toBe(0);
  expect(first.stdout).toMatch(/^ID\s+STATUS\s+KIND\s+NAME\s+LAST RUN\s+TARGET URL$/m);
  expect(first.stdout).toContain(never);
  expect(first.stdout).toMatch(/alpha prices\s+never\s/);
  const more = moreArgs(first.stdout);
  expect(more?.slice(0, -1)).toEqual([
    'bots',
    'list',
    '--q=PRICES',
    '--tag=shop',
    '--tag=daily',
    '--status=active',
    '--sort=name',
    '--limit=1',
  ]);

  const second = await botfleet(more!, f.org.keys.read);
  expect(second.code).toBe(0);
  expect(second.stdout).toContain(ran);
  expect(second.stdout).toMatch(/beta prices\s+\d{4}-\d\d-\d\dT\S+ pending\s/);
  expect(moreArgs(second.stdout)).toBeNull();

  const recent = JSON.parse(
    (await botfleet(['bots', 'list', '--search', 'prices', '--sort=-lastRunAt', '--json'], f.org.keys.read)).stdout,
  ) as { data: { id: string; lastExecution: { status: string } | null }[] };
  expect(recent.data[0]).toMatchObject({ id: ran, lastExecution: { status: 'pending' } });
  expect(recent.data.map((b) => b.id)).toHaveLength(3);
});

it.each([[['--sort', 'newest']], [['--status', 'deleted']], [['--q', 'a', '--search', 'b']]])(
  'refuses %j before calling the API',
  async (args) => {
    const res = await botfleet(['bots', 'list', ...args]);
    expect(res.code).toBe(2);
  },
);
