import { startFixtureServer, type FixtureServer } from '@botfleet/testkit';
import request from 'supertest';
import { createE2eHarness, type E2eHarness } from './testing/e2e-harness';

const PAGE = `<!doctype html><html><body>
  <h1 id="title">Catalogue</h1><input id="q">
  <ul><li class="item"><b>A</b><i data-p="1">one</i></li><li class="item"><b>B</b><i data-p="2">two</i></li><li class="item"><b>C</b></li></ul>
</body></html>`;

let h: E2eHarness;
let site: FixtureServer;

beforeAll(async () => {
  site = await startFixtureServer({ '/page': PAGE });
  h = await createE2eHarness();
});
afterAll(async () => {
  await h.close();
  await site.close();
});

async function runScript(source: string, capabilities: object = {}) {
  const botId = await h.createBot({ targetUrl: site.url('/page'), manifest: { capabilities } });
  const created = await request(h.api.app)
    .post(`/api/v1/bots/${botId}/scripts`)
    .set(h.org.auth('write'))
    .send({ name: 'test', source, active: true });
  expect(created.status).toBe(201);
  const executionId = await h.trigger(botId);
  const execution = await h.waitForFinal(executionId, 45_000);
  return { executionId, execution };
}

describe('handwritten scripts', () => {
  it.each([
    ['reads process.env', 'export default async () => process.env.DATABASE_URL;', /process/],
    ['requires fs', "export default async () => require('fs').readFileSync('/etc/passwd', 'utf8');", /require/],
    [
      'requires child_process',
      "export default async () => require('child_process').execSync('id').toString();",
      /require/,
    ],
    [
      'imports a host module',
      "import fs from 'fs';\nexport default async () => fs.readFileSync('/etc/passwd', 'utf8');",
      /fs|module|import/i,
    ],
    [
      'escapes through constructors',
      "export default async ({ page }) => page.constructor.constructor('return process')().env;",
      /process|not defined|undefined/i,
    ],
    ['loops forever', 'export default async () => { while (true) {} };', /timed out/],
    [
      'allocates without bound',
      'export default async () => { const a = []; for (;;) a.push(new Array(100000).fill(1)); };',
      /memory/,
    ],
    ['throws', "export default async () => { throw new Error('boom from the script'); };", /boom from the script/],
  ])('a script that %s fails with a clear error and leaves the worker healthy', async (label, source, message) => {
    // Only the endless loop should meet the run's time limit; the rest must fail for their own
    // reason even on a loaded machine (allocating up to the memory limit takes seconds there).
    const { executionId, execution } = await runScript(source, { timeout: /forever/.test(label) ? 3 : 30 });
    expect(execution.status).toBe('failed');
    const failure = (await h.get(`/api/v1/executions/${executionId}/failure`)).body;
    expect(failure.error).toMatch(message);
    expect(failure.error).not.toContain('postgresql://');
    expect(failure.screenshotUrl).toEqual(expect.any(String));
  });

  it('returns a good script’s logs, step outputs and data after the hostile ones', async () => {
    const source = `export default async ({ page, params, log, step }) => {
      log('starting');
      const title = await step('title', () => page.textContent('#title'));
      const items = await step('items', () => page.$$eval('.item', (els) => els.map((el) => el.querySelector('b').textContent)));
      log.warn('found ' + items.length);
      return { title, items };
    };`;
    const { executionId, execution } = await runScript(source);
    expect(execution.status).toBe('completed');
    expect((await h.get(`/api/v1/executions/${executionId}/extract`)).body).toEqual({
      data: { title: 'Catalogue', items: ['A', 'B', 'C'] },
    });
    const steps = (await h.get(`/api/v1/executions/${executionId}/steps`)).body.data;
    expect(
      steps.map((s: { index: number; action: string; status: string; data: unknown }) => [
        s.index,
        s.action,
        s.status,
        s.data,
      ]),
    ).toEqual([
      [0, 'title', 'completed', 'Catalogue'],
      [1, 'items', 'completed', ['A', 'B', 'C']],
    ]);
    const logs = (await h.get(`/api/v1/executions/${executionId}/logs`)).body.data.filter(
      (l: { source: string }) => l.source === 'script',
    );
    expect(logs.map((l: { level: string; message: string }) => [l.level, l.message])).toEqual([
      ['info', 'starting'],
      ['warn', 'found 3'],
    ]);
  });
});

it('the generated script of a bot extracts the same data as its steps', async () => {
  const steps = [
    { action: 'fill', selector: '#q', value: 'x{{params.q}}' },
    { action: 'click', selector: '#missing-banner', optional: true, timeout: 300 },
    { action: 'extract', name: 'title', selector: '#title' },
    { action: 'extract', name: 'typed', selector: '#q', attribute: 'id' },
    {
      action: 'extract',
      name: 'rows',
      selector: '.item',
      multiple: true,
      fields: { name: { selector: 'b' }, price: { selector: 'i', attribute: 'data-p' } },
    },
    { action: 'extract', name: 'names', selector: '.item b', multiple: true },
  ];
  const botId = await h.createBot({
    targetUrl: site.url('/page'),
    kind: 'action',
    manifest: { parameters: [{ name: 'q', type: 'string' }] },
    steps,
  });
  const byStepsId = await h.trigger(botId, { q: '1' });
  expect(await h.waitForFinal(byStepsId)).toMatchObject({ status: 'completed' });
  const byStepsData = (await h.get(`/api/v1/executions/${byStepsId}/extract`)).body.data;

  const generated = (await h.get(`/api/v1/bots/${botId}/scripts`)).body.data.find(
    (s: { origin: string }) => s.origin === 'generated',
  );
  await request(h.api.app)
    .post(`/api/v1/bots/${botId}/scripts`)
    .set(h.org.auth('write'))
    .send({ name: 'copy', source: generated.source, active: true });
  const byScriptId = await h.trigger(botId, { q: '1' });
  expect(await h.waitForFinal(byScriptId)).toMatchObject({ status: 'completed' });
  const byScriptData = (await h.get(`/api/v1/executions/${byScriptId}/extract`)).body.data;

  expect(byStepsData).toEqual({
    title: 'Catalogue',
    typed: 'q',
    rows: [
      { name: 'A', price: '1' },
      { name: 'B', price: '2' },
      { name: 'C', price: null },
    ],
    names: ['A', 'B', 'C'],
  });
  expect(byScriptData).toEqual(byStepsData);
});
