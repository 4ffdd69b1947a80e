import { waitUntil } from '@botfleet/testkit';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  botfleetCli,
  SHOP_DATA,
  SHOP_STEPS,
  startJourneyFixture,
  type BotfleetCli,
  type JourneyFixture,
} from './testing';

/*
 * The `botfleet` command as a script runs it: a child process configured by BOTFLEET_URL and
 * BOTFLEET_API_KEY, through the same journey as the SDK's test, reading --json output and exit
 * codes.
 */

let f: JourneyFixture;
let cli: BotfleetCli;
let dir: string;
beforeAll(async () => {
  f = await startJourneyFixture();
  cli = botfleetCli(f.baseUrl, f.org.keys.write);
  dir = mkdtempSync(join(tmpdir(), 'botfleet-cli-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await f?.close();
});

const botfleet = (args: string[], key?: string, env?: Record<string, string>) => cli.run(args, { key, env });
const json = <T>(args: string[], key?: string) => cli.json<T>(args, { key });

function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(content));
  return path;
}

it('imports a recording, sets steps and manifest, runs with --wait and reads logs and deliveries', async () => {
  const recording = file('recording.json', {
    title: 'Shop from the CLI',
    steps: [
      { type: 'navigate', url: f.site.url('/') },
      { type: 'click', selectors: [['#go']], offsetX: 5, offsetY: 5 },
    ],
  });
  const bot = await json<{ id: string; name: string; targetUrl: string }>(['bots', 'import', recording]);
  expect(bot).toMatchObject({ name: 'Shop from the CLI', targetUrl: f.site.url('/') });

  const steps = await json<{ action: string }[]>(['bots', 'steps', bot.id, '--file', file('steps.json', SHOP_STEPS)]);
  expect(steps.map((step) => step.action)).toEqual(['extract', 'extract']);
  const manifest = file('manifest.json', {
    webhook: { url: `${f.receiver.url}/cli-hook` },
    parameters: [
      { name: 'count', type: 'integer', required: true },
      { name: 'label', type: 'string', required: false },
    ],
  });
  expect(await json(['bots', 'manifest', bot.id, '--file', manifest])).toMatchObject({
    webhook: { url: `${f.receiver.url}/cli-hook` },
  });

  const listed = await json<{ data: { id: string }[] }>(['bots', 'list', '--limit', '100'], f.org.keys.read);
  expect(listed.data.map((b) => b.id)).toContain(bot.id);

  // k=v values take the type the manifest declares: count is sent as the integer 3.
  const run = await json<{ execution: { id: string; status: string; params: object }; data: unknown }>([
    'runs',
    'trigger',
    bot.id,
    '--params',
    'count=3',
    '--params',
    'label=cli',
    '--wait',
    '--timeout',
    '30',
  ]);
  expect(run.execution).toMatchObject({ status: 'completed', params: { count: 3, label: 'cli' } });
  expect(run.data).toEqual(SHOP_DATA);

  const logs = await json<{ message: string }[]>(['runs', 'logs', run.execution.id], f.org.keys.read);
  expect(logs.length).toBeGreaterThan(0);
  const text = await botfleet(['runs', 'logs', run.execution.id], f.org.keys.read);
  expect(text.code).toBe(0);
  expect(text.stdout).toContain(logs[0]!.message);

  const deliveries = await waitUntil(
    async () => {
      const list = await json<{ status: string; attemptCount: number }[]>(['runs', 'deliveries', run.execution.id]);
      return list.find((d) => d.status === 'succeeded');
    },
    { timeoutMs: 15_000, message: 'the webhook delivery' },
  );
  expect(deliveries.attemptCount).toBe(1);
  expect(JSON.parse(f.receiver.requests.find((r) => r.url === '/cli-hook')!.body)).toEqual(SHOP_DATA);

  // Without --json: the execution id alone, ready for $(...).
  const queued = await botfleet(['runs', 'trigger', bot.id, '--params', 'count=1']);
  expect(queued.code).toBe(0);
  expect(queued.stdout.trim()).toMatch(/^exe_\S+$/);
});

it('exits 1 for a failed run and prints why', async () => {
  const bot = await json<{ id: string }>(['bots', 'create', '--name', 'cli broken', '--target', f.site.url('/')]);
  await json([
    'bots',
    'steps',
    bot.id,
    '--file',
    file('broken.json', [{ action: 'click', selector: '#missing', timeout: 500 }]),
  ]);
  const run = await botfleet(['runs', 'trigger', bot.id, '--wait', '--json']);
  expect(run.code).toBe(1);
  const report = JSON.parse(run.stdout) as {
    execution: { status: string };
    failure: { stepIndex: number; error: string };
  };
  expect(report.execution.status).toBe('failed');
  expect(report.failure).toMatchObject({ stepIndex: 0, error: expect.stringMatching(/#missing/) });
});

it('creates an API key with an admin key, and exits 3 with the API’s error for a weaker one', async () => {
  const created = await json<{ key: string; permission: string }>(
    ['keys', 'create', '--name', 'ci', '--permission', 'read'],
    f.org.keys.admin,
  );
  expect(created).toMatchObject({ permission: 'read', key: expect.stringMatching(/^bf_/) });
  // The new key works.
  expect((await botfleet(['bots', 'list'], created.key)).code).toBe(0);

  const refused = await botfleet(
    ['keys', 'create', '--name', 'nope', '--permission', 'admin', '--json'],
    f.org.keys.write,
  );
  expect(refused.code).toBe(3);
  expect(JSON.parse(refused.stderr)).toMatchObject({ error: { code: 'forbidden', status: 403 } });
});

it('exits 2 for a bad command line and 4 when the API cannot be reached', async () => {
  const usage = await botfleet(['runs', 'trigger']);
  expect(usage.code).toBe(2);
  expect(usage.stderr).toContain('runs trigger takes one bot id');
  expect((await botfleet(['bots', 'frobnicate'])).code).toBe(2);
  expect((await botfleet(['bots', 'list', '--limit', 'lots'])).code).toBe(2);
  const noKey = await botfleet(['bots', 'list'], '');
  expect(noKey.code).toBe(2);
  const unreachable = await botfleet(['bots', 'list'], f.org.keys.read, { BOTFLEET_URL: 'http://127.0.0.1:9' });
  expect(unreachable.code).toBe(4);
  expect((await botfleet(['--help'])).code).toBe(0);
});
