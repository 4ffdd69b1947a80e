import { startFixtureServer, startTestProxy, type FixtureServer, type TestProxy } from '@botfleet/testkit';
import { createE2eHarness, type E2eHarness } from './testing/e2e-harness';

const LIST_PAGE = `<!doctype html><html><body>
  <h1 id="title">  Winter sale  </h1>
  <a id="more" href="/next">more</a>
  <ul>
    <li class="item"><span class="name">Boots</span><span class="price" data-cents="4999">49.99</span></li>
    <li class="item"><span class="name">Scarf</span><span class="price" data-cents="1999">19.99</span></li>
    <li class="item"><span class="name">Hat</span></li>
  </ul></body></html>`;

const FORM_PAGE = `<!doctype html><html><body>
  <form method="POST" action="/submit">
    <input id="q" name="q"><select id="size" name="size"><option>S</option><option>M</option><option>L</option></select>
    <input id="gift" type="checkbox" name="gift"><button id="send" type="submit">Send</button>
  </form></body></html>`;

const CAPABILITIES_PAGE = `<!doctype html><html><body>
  <div id="lang"></div><div id="tz"></div><div id="ua"></div><div id="size"></div><div id="geo"></div>
  <script>
    document.getElementById('lang').textContent = navigator.language;
    document.getElementById('tz').textContent = Intl.DateTimeFormat().resolvedOptions().timeZone;
    document.getElementById('ua').textContent = navigator.userAgent;
    document.getElementById('size').textContent = innerWidth + 'x' + innerHeight;
    navigator.geolocation.getCurrentPosition(
      (p) => { const g = document.getElementById('geo'); g.textContent = p.coords.latitude + ',' + p.coords.longitude; g.dataset.ready = '1'; },
      (e) => { const g = document.getElementById('geo'); g.textContent = 'error ' + e.code; g.dataset.ready = '1'; });
  </script></body></html>`;

let h: E2eHarness;
let site: FixtureServer;
let proxy: TestProxy;

beforeAll(async () => {
  site = await startFixtureServer({
    '/list': LIST_PAGE,
    '/form': FORM_PAGE,
    '/capabilities': CAPABILITIES_PAGE,
    '/submit': (_req, res, body) =>
      void res.writeHead(200, { 'content-type': 'text/html' }).end(`<p id="got">${body}</p>`),
    '/ads': `<!doctype html><body><h1 id="t">ads</h1><script src="http://doubleclick.net/tag.js"></script></body>`,
    '/tag.js': (_req, res) =>
      void res.writeHead(200, { 'content-type': 'application/javascript' }).end('window.adLoaded = true;'),
  });
  proxy = await startTestProxy();
  h = await createE2eHarness({
    proxyUrls: [proxy.proxyUrl],
    // Resolve the ad domain to the fixture server so "let through" is observable on loopback.
    extraBrowserArgs: [`--host-resolver-rules=MAP doubleclick.net 127.0.0.1:${site.port}`],
  });
});
afterAll(async () => {
  await h.close();
  await site.close();
  await proxy.close();
});

it('runs an extraction bot and exposes data, step outputs, logs, latest-execution and latest-extract', async () => {
  const botId = await h.createBot({
    targetUrl: site.url('/list'),
    steps: [
      { action: 'extract', name: 'title', selector: '#title' },
      { action: 'extract', name: 'link', selector: '#more', attribute: 'href' },
      {
        action: 'extract',
        name: 'items',
        selector: '.item',
        multiple: true,
        fields: { name: { selector: '.name' }, cents: { selector: '.price', attribute: 'data-cents' } },
      },
      { action: 'extract', name: 'names', selector: '.item .name', multiple: true },
    ],
  });
  const executionId = await h.trigger(botId);
  const execution = await h.waitForFinal(executionId);
  expect(execution).toMatchObject({ id: executionId, botId, status: 'completed', trigger: 'api', params: {} });
  expect(execution.completedAt).toEqual(expect.any(Number));
  expect(execution.duration).toBe((execution.completedAt as number) - (execution.startedAt as number));

  const data = {
    title: 'Winter sale',
    link: '/next',
    items: [
      { name: 'Boots', cents: '4999' },
      { name: 'Scarf', cents: '1999' },
      { name: 'Hat', cents: null },
    ],
    names: ['Boots', 'Scarf', 'Hat'],
  };
  expect((await h.get(`/api/v1/executions/${executionId}/extract`)).body).toEqual({ data });

  const steps = (await h.get(`/api/v1/executions/${executionId}/steps`)).body.data;
  expect(steps.map((s: { index: number; action: string; status: string }) => [s.index, s.action, s.status])).toEqual([
    [0, 'extract', 'completed'],
    [1, 'extract', 'completed'],
    [2, 'extract', 'completed'],
    [3, 'extract', 'completed'],
  ]);
  expect(steps[0]).toEqual({
    index: 0,
    action: 'extract',
    status: 'completed',
    data: 'Winter sale',
    error: null,
    startedAt: expect.any(Number),
    duration: expect.any(Number),
  });
  const one = await h.get(`/api/v1/executions/${executionId}/steps/2`);
  expect(one.body.data).toEqual(data.items);
  expect((await h.get(`/api/v1/executions/${executionId}/steps/9`)).status).toBe(404);

  const logs = (await h.get(`/api/v1/executions/${executionId}/logs`)).body.data;
  expect(logs.length).toBeGreaterThan(1);
  expect(logs[0]).toEqual({
    timestamp: expect.any(Number),
    level: 'info',
    source: 'system',
    message: expect.stringContaining('Attempt 1 started'),
    attempt: 1,
  });
  expect(logs.some((l: { source: string }) => l.source === 'runner')).toBe(true);
  const stamps = logs.map((l: { timestamp: number }) => l.timestamp);
  expect(stamps).toEqual([...stamps].sort((a, b) => a - b));

  expect((await h.get(`/api/v1/bots/${botId}/latest-execution`)).body).toMatchObject({
    id: executionId,
    status: 'completed',
  });
  expect((await h.get(`/api/v1/bots/${botId}/latest-extract`)).body).toEqual({
    executionId,
    completedAt: execution.completedAt,
    data,
  });
  expect((await h.get(`/api/v1/executions/${executionId}/failure`)).status).toBe(404);
});

it('fills an action bot’s params into the page', async () => {
  const botId = await h.createBot({
    targetUrl: site.url('/form'),
    kind: 'action',
    manifest: {
      parameters: [
        { name: 'query', type: 'string', required: true },
        { name: 'size', type: 'string' },
      ],
    },
    steps: [
      { action: 'fill', selector: '#q', value: 'find {{params.query}}!' },
      { action: 'select', selector: '#size', value: '{{params.size}}' },
      { action: 'check', selector: '#gift' },
      { action: 'click', selector: '#send' },
      { action: 'waitFor', selector: '#got' },
      { action: 'extract', name: 'echo', selector: '#got' },
    ],
  });
  const executionId = await h.trigger(botId, { query: 'red boots', size: 'L' });
  expect(await h.waitForFinal(executionId)).toMatchObject({
    status: 'completed',
    params: { query: 'red boots', size: 'L' },
  });
  const submitted = site.requests.find((r) => r.path === '/submit');
  expect(new URLSearchParams(submitted!.body).get('q')).toBe('find red boots!');
  expect((await h.get(`/api/v1/executions/${executionId}/extract`)).body.data.echo).toBe(
    'q=find+red+boots%21&size=L&gift=on',
  );
});

it('applies every browser capability inside the page', async () => {
  const botId = await h.createBot({
    targetUrl: site.url('/capabilities'),
    manifest: {
      capabilities: {
        locale: 'de-DE',
        timezone: 'Asia/Tokyo',
        userAgent: 'botfleet-e2e/1.0',
        resolution: { width: 1111, height: 777 },
        geolocation: { latitude: 35.6762, longitude: 139.6503 },
      },
    },
    steps: [
      { action: 'waitFor', selector: '#geo[data-ready]' },
      ...['lang', 'tz', 'ua', 'size', 'geo'].map((name) => ({ action: 'extract', name, selector: `#${name}` })),
    ],
  });
  const executionId = await h.trigger(botId);
  expect((await h.waitForFinal(executionId)).status).toBe('completed');
  expect((await h.get(`/api/v1/executions/${executionId}/extract`)).body.data).toEqual({
    lang: 'de-DE',
    tz: 'Asia/Tokyo',
    ua: 'botfleet-e2e/1.0',
    size: '1111x777',
    geo: '35.6762,139.6503',
  });
});

it('routes through the proxy pool when capabilities.proxy is on', async () => {
  const botId = await h.createBot({
    targetUrl: 'http://proxied.botfleet.test/page',
    manifest: { capabilities: { proxy: true } },
    steps: [{ action: 'extract', name: 'via', selector: '#via' }],
  });
  const executionId = await h.trigger(botId);
  expect((await h.waitForFinal(executionId)).status).toBe('completed');
  expect((await h.get(`/api/v1/executions/${executionId}/extract`)).body.data.via).toBe(
    'served by test proxy for http://proxied.botfleet.test/page',
  );
  expect(proxy.requests.map((r) => r.url)).toContain('http://proxied.botfleet.test/page');
});

it('blocks ad requests with adBlocking and lets them through without it', async () => {
  const adHits = () => site.requests.filter((r) => r.path === '/tag.js' && r.host.startsWith('doubleclick.net')).length;
  const steps = [{ action: 'extract', name: 't', selector: '#t' }];
  const blocked = await h.createBot({
    targetUrl: site.url('/ads'),
    manifest: { capabilities: { adBlocking: true } },
    steps,
  });
  const blockedRun = await h.trigger(blocked);
  expect((await h.waitForFinal(blockedRun)).status).toBe('completed');
  expect(adHits()).toBe(0);
  const logs = (await h.get(`/api/v1/executions/${blockedRun}/logs`)).body.data.map(
    (l: { message: string }) => l.message,
  );
  expect(logs).toContain('Blocked 1 ad and tracker requests');

  const open = await h.createBot({ targetUrl: site.url('/ads'), steps });
  expect((await h.waitForFinal(await h.trigger(open))).status).toBe('completed');
  expect(adHits()).toBe(1);
});
