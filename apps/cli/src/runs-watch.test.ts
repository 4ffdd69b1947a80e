import {
  createBot,
  createBotfleetClient,
  followExecutionEvents,
  replaceSteps,
  triggerExecution,
  type Client,
  type RunStreamEvent,
  type Step,
} from '@botfleet/sdk';
import { waitUntil } from '@botfleet/testkit';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { botfleetCli, SHOP_STEPS, startJourneyFixture, type BotfleetCli, type JourneyFixture } from './testing';

/*
 * Following runs live with a real API, worker (Chromium) and the run's event stream: the SDK's
 * iterator and `botfleet runs watch`, which replaced polling.
 */

let f: JourneyFixture;
let client: Client;
let cli: BotfleetCli;
let botId: string;
beforeAll(async () => {
  f = await startJourneyFixture();
  client = createBotfleetClient({ baseUrl: f.baseUrl, apiKey: f.org.keys.write });
  cli = botfleetCli(f.baseUrl, f.org.keys.read);
  const { data: bot } = await createBot({
    client,
    body: { name: 'watched shop', targetUrl: f.site.url('/') },
    throwOnError: true,
  });
  botId = bot.id;
  await replaceSteps({ client, path: { botId }, body: { steps: SHOP_STEPS }, throwOnError: true });
});
afterAll(() => f?.close());

const trigger = async () =>
  (await triggerExecution({ client, path: { botId }, body: {}, throwOnError: true })).data.executionId;

async function collect(events: AsyncIterable<RunStreamEvent>, stopAfter = Infinity): Promise<RunStreamEvent[]> {
  const seen: RunStreamEvent[] = [];
  for await (const event of events) {
    seen.push(event);
    if (seen.length >= stopAfter) break;
  }
  return seen;
}

const shape = (e: RunStreamEvent) =>
  e.event === 'step' ? `step:${e.data.index}` : e.event === 'log' ? 'log' : `${e.event}:${e.data.status}`;

it('follows a run with the SDK: every step in order, then the end; a resume misses nothing', async () => {
  const executionId = await trigger();
  const first = await collect(followExecutionEvents(client, executionId), 1);
  // The iterator was left after one event: resume from it, as a reconnecting client does.
  const rest = await collect(followExecutionEvents(client, executionId, { lastEventId: first[0]!.id }));
  const followed = [...first, ...rest];
  const steps = followed.filter((e) => e.event === 'step').map(shape);
  expect(steps).toEqual(['step:0', 'step:1']);
  expect(followed.at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
  expect(followed.at(-2)).toMatchObject({ event: 'status', data: { id: executionId, status: 'completed' } });
  // Nothing twice, nothing missed: the same output as a replay of the ended run (which announces
  // only the final status, not those the run went through).
  const replay = await collect(followExecutionEvents(client, executionId));
  const output = (events: RunStreamEvent[]) =>
    events
      .filter((e) => e.event !== 'status')
      .map(shape)
      .sort();
  expect(output(followed)).toEqual(output(replay));
  expect(new Set(followed.filter((e) => e.event === 'log').map((e) => e.id)).size).toBe(
    replay.filter((e) => e.event === 'log').length,
  );
});

it('hears each step while the run goes, from the worker’s progress writes, not only at its end', async () => {
  const { data: slow } = await createBot({
    client,
    body: { name: 'slow shop', targetUrl: f.site.url('/') },
    throwOnError: true,
  });
  const steps: Step[] = [SHOP_STEPS[0]!, { action: 'waitFor', ms: 4_000 }, SHOP_STEPS[1]!];
  await replaceSteps({ client, path: { botId: slow.id }, body: { steps }, throwOnError: true });
  const { data } = await triggerExecution({ client, path: { botId: slow.id }, body: {}, throwOnError: true });
  const arrived = new Map<string, number>();
  for await (const event of followExecutionEvents(client, data.executionId))
    if (!arrived.has(shape(event))) arrived.set(shape(event), Date.now());
  // The first step arrived during the 4 s wait, well before the run ended.
  expect(arrived.get('end:completed')! - arrived.get('step:0')!).toBeGreaterThan(1_500);
  expect([...arrived.keys()].filter((k) => k.startsWith('step:'))).toEqual(['step:0', 'step:1', 'step:2']);
});

it('`runs watch` prints the run as it goes and exits with its outcome', async () => {
  const executionId = await trigger();
  const json = await cli.run(['runs', 'watch', executionId, '--json']);
  expect(json.code).toBe(0);
  const events = json.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as RunStreamEvent);
  expect(events.filter((e) => e.event === 'step').map(shape)).toEqual(['step:0', 'step:1']);
  expect(events.at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });

  const text = await cli.run(['runs', 'watch', executionId]);
  expect(text.code).toBe(0);
  // People read steps counted from 1; the --json events keep the API's 0-based index.
  expect(text.stdout).toMatch(/step {3}1 extract completed/);
  expect(text.stdout).toContain('end    completed');
  expect(text.stdout).toContain('"title": "Products"');

  const usage = await cli.run(['runs', 'watch', executionId, '--status', 'done']);
  expect(usage.code).toBe(2);
  const missing = await cli.run(['runs', 'watch', 'exe_missing']);
  expect(missing.code).toBe(3);
});

it('`runs watch --all` prints the organization’s status changes until Ctrl-C', async () => {
  const child = spawn(
    process.execPath,
    [join(__dirname, '..', 'bin', 'botfleet.cjs'), 'runs', 'watch', '--all', '--json'],
    {
      env: { ...process.env, BOTFLEET_URL: f.baseUrl, BOTFLEET_API_KEY: f.org.keys.read },
    },
  );
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    // Nothing says when the child's stream is open but its first event: runs until one shows.
    await waitUntil(async () => out.length > 0 || void (await trigger()), {
      intervalMs: 2_000,
      timeoutMs: 60_000,
      message: 'runs watch --all never printed',
    });
    const executionId = await trigger();
    await waitUntil(() => out.includes(`"executionId":"${executionId}"`) && out.includes('"status":"completed"'), {
      timeoutMs: 60_000,
      message: `no completed status in ${out}`,
    });
  } finally {
    child.kill('SIGINT');
  }
  expect(await exited).toBe(0);
});
