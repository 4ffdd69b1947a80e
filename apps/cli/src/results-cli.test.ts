import { createTestExecution } from '@botfleet/db/testing';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCliApiFixture, type CliApiFixture } from './testing';

/*
 * `botfleet bots results` as a script runs it: a child process streaming a bot's results export
 * to standard output, redirected to a file or piped into a reader that stops early.
 */

const BIN = join(__dirname, '..', 'bin', 'botfleet.cjs');
const T0 = Date.parse('2026-01-01T00:00:00Z');

let f: CliApiFixture;
let botId: string;
let ids: string[];
/** A server of the fixture's API of this suite's own, for the shell to reach. */
let baseUrl: string;
beforeAll(async () => {
  f = await startCliApiFixture('results');
  baseUrl = `http://127.0.0.1:${(await f.api.listen()).port}`;
  botId = await f.api.newBot(f.org, { name: 'exported' });
  ids = [];
  for (const [i, data] of [
    { title: 'Hat, wool', price: 10 },
    { title: 'Boots', tags: ['new'] },
  ].entries()) {
    const run = await createTestExecution(f.api.db, {
      botId,
      organizationId: f.org.id,
      completed: { extractedData: data },
    });
    await f.api.db.execution.update({ where: { id: run.id }, data: { completedAt: new Date(T0 + i) } });
    ids.push(run.id);
  }
});
afterAll(async () => {
  await f?.close();
});

const botfleet = (args: string[]) => f.cli.run(args);

/** The CLI through a shell, as a user types it: `botfleet ... > file` or `botfleet ... | head`. */
const shell = (line: string) =>
  new Promise<{ code: number; stderr: string }>((resolve) => {
    const env = { ...process.env, BOTFLEET_URL: baseUrl, BOTFLEET_API_KEY: f.org.keys.read };
    const command = `set -o pipefail; "${process.execPath}" "${BIN}" ${line}`;
    execFile('bash', ['-c', command], { env, timeout: 60_000 }, (err, _stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stderr }),
    );
  });

it('streams the bot’s runs as CSV, JSON Lines or JSON to standard output', async () => {
  const csv = await botfleet(['bots', 'results', botId, '--format', 'csv']);
  expect(csv).toMatchObject({ code: 0, stderr: '' });
  expect(csv.stdout).toBe(
    `executionId,completedAt,price,title,tags.0\r\n${ids[0]},${T0},10,"Hat, wool",\r\n${ids[1]},${T0 + 1},,Boots,new\r\n`,
  );
  const lines = await botfleet([
    'bots',
    'results',
    botId,
    '--format',
    'jsonl',
    '--fields',
    'title',
    '--from',
    `${T0 + 1}`,
  ]);
  expect(lines.stdout).toBe('{"title":"Boots"}\n');
  const json = await botfleet(['bots', 'results', botId, '--items-path', 'tags', '--to', '2026-01-02T00:00:00Z']);
  expect(JSON.parse(json.stdout)).toEqual([{ executionId: ids[1], completedAt: T0 + 1, value: 'new' }]);
});

it('refuses a bad format on the command line, and reports the API’s envelope for bad fields', async () => {
  const format = await botfleet(['bots', 'results', botId, '--format', 'xml']);
  expect(format.code).toBe(2);
  expect(format.stderr).toContain('--format is json, jsonl or csv');
  const fields = await botfleet(['bots', 'results', botId, '--fields', 'a,,b']);
  expect(fields.code).toBe(3);
  expect(fields.stderr).toContain('validation_error');
  expect(fields.stdout).toBe('');
});

describe('a large export', () => {
  const RUNS = 3_000;
  let bigBot: string;
  beforeAll(async () => {
    bigBot = await f.api.newBot(f.org, { name: 'big export' });
    const salt = randomBytes(6).toString('hex');
    await f.api.db.$executeRaw`
      INSERT INTO "Execution" (id, "botId", "organizationId", status, trigger, params, "createdAt", "startedAt", "completedAt", "updatedAt", "extractedData")
      SELECT 'exe_' || substr(md5(${salt} || i::text), 1, 26), ${bigBot}, ${f.org.id}, 'completed', 'api', '{}',
             now(), now(), ${new Date(T0)}::timestamptz + i * interval '1 millisecond', now(),
             jsonb_build_object('n', i, 'pad', repeat('y', 1000))
        FROM generate_series(1, ${RUNS}::int) AS i`;
  });

  it('redirects to a file whole', async () => {
    const file = join(f.dir, 'out.csv');
    const result = await shell(`bots results ${bigBot} --format csv > "${file}"`);
    expect(result).toEqual({ code: 0, stderr: '' });
    const rows = readFileSync(file, 'utf8').split('\r\n');
    expect(rows[0]).toBe('executionId,completedAt,n,pad');
    expect(rows.length).toBe(RUNS + 2);
    expect(rows[RUNS]!.split(',')[2]).toBe(String(RUNS));
  });

  it('stops quietly when the reader has had enough (| head)', async () => {
    const result = await shell(`bots results ${bigBot} --format jsonl | head -c 100 > /dev/null`);
    expect(result).toEqual({ code: 0, stderr: '' });
  });
});
