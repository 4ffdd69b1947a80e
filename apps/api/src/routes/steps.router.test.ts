import request from 'supertest';
import { useApiHarness, type ApiHarness, type TestOrg } from '../testing/api-harness';

let h: ApiHarness;
let org: TestOrg;
useApiHarness((harness, first) => {
  h = harness;
  org = first;
});

const newBot = () => h.newBot(org);
const put = (botId: string, steps: unknown) =>
  request(h.app).put(`/api/v1/bots/${botId}/steps`).set(org.auth('write')).send({ steps });

const EVERY_ACTION = [
  { action: 'goto', url: 'https://a.example/{{params.path}}' },
  { action: 'click', selector: '#a', timeout: 2000 },
  { action: 'hover', selector: '#b' },
  { action: 'check', selector: '#c' },
  { action: 'uncheck', selector: '#d', optional: true },
  { action: 'fill', selector: '#q', value: '{{params.query}}' },
  { action: 'select', selector: '#size', value: 'L' },
  { action: 'press', key: 'Enter' },
  { action: 'press', key: 'Tab', selector: '#q' },
  { action: 'waitFor', selector: '.done' },
  { action: 'waitFor', ms: 250 },
  { action: 'scroll' },
  { action: 'scroll', selector: '#footer' },
  { action: 'extract', name: 'title', selector: 'h1' },
  { action: 'extract', name: 'link', selector: 'a', attribute: 'href' },
  { action: 'extract', name: 'names', selector: '.n', multiple: true },
  {
    action: 'extract',
    name: 'rows',
    selector: '.row',
    multiple: true,
    fields: { name: { selector: '.n' }, url: { selector: 'a', attribute: 'href' } },
  },
  { action: 'screenshot', fullPage: true },
];

describe('recorded steps', () => {
  it('stores every action, numbers the steps and reads them back in order', async () => {
    const botId = await newBot();
    expect((await request(h.app).get(`/api/v1/bots/${botId}/steps`).set(org.auth('read'))).body).toEqual({ data: [] });
    const res = await put(botId, EVERY_ACTION);
    expect(res.status).toBe(200);
    const expected = EVERY_ACTION.map((step, index) => ({ ...step, index }));
    expect(res.body).toEqual({ data: expected });
    expect((await request(h.app).get(`/api/v1/bots/${botId}/steps`).set(org.auth('read'))).body).toEqual({
      data: expected,
    });

    // PUT replaces the whole list.
    expect((await put(botId, [{ index: 0, action: 'click', selector: '#only' }])).body.data).toEqual([
      { index: 0, action: 'click', selector: '#only' },
    ]);
  });

  it.each([
    ['an unknown action', [{ action: 'drag', selector: '#a' }], 'steps.0.action'],
    ['goto without url', [{ action: 'goto' }], 'steps.0.url'],
    ['click without selector', [{ action: 'click' }], 'steps.0.selector'],
    ['click with an empty selector', [{ action: 'click', selector: '' }], 'steps.0.selector'],
    ['fill without value', [{ action: 'fill', selector: '#q' }], 'steps.0.value'],
    ['select with a number', [{ action: 'select', selector: '#s', value: 3 }], 'steps.0.value'],
    ['press without key', [{ action: 'press', selector: '#q' }], 'steps.0.key'],
    ['waitFor with neither', [{ action: 'waitFor' }], 'steps.0.selector'],
    ['waitFor with both', [{ action: 'waitFor', selector: '#a', ms: 5 }], 'steps.0.selector'],
    ['waitFor with negative ms', [{ action: 'waitFor', ms: -1 }], 'steps.0.ms'],
    ['extract without name', [{ action: 'extract', selector: 'h1' }], 'steps.0.name'],
    ['extract with a reserved name', [{ action: 'extract', name: 'constructor', selector: 'h1' }], 'steps.0.name'],
    ['extract with a bad name', [{ action: 'extract', name: 'a-b', selector: 'h1' }], 'steps.0.name'],
    [
      'extract fields without multiple',
      [{ action: 'extract', name: 'r', selector: '.r', fields: { a: { selector: 'b' } } }],
      'steps.0.multiple',
    ],
    [
      'extract fields beside attribute',
      [
        {
          action: 'extract',
          name: 'r',
          selector: '.r',
          multiple: true,
          attribute: 'x',
          fields: { a: { selector: 'b' } },
        },
      ],
      'steps.0.attribute',
    ],
    [
      'extract with empty fields',
      [{ action: 'extract', name: 'r', selector: '.r', multiple: true, fields: {} }],
      'steps.0.fields',
    ],
    [
      'a field without selector',
      [{ action: 'extract', name: 'r', selector: '.r', multiple: true, fields: { a: {} } }],
      'steps.0.fields.a.selector',
    ],
    ['screenshot with a bad flag', [{ action: 'screenshot', fullPage: 'yes' }], 'steps.0.fullPage'],
    ['a zero timeout', [{ action: 'click', selector: '#a', timeout: 0 }], 'steps.0.timeout'],
    ['optional not boolean', [{ action: 'click', selector: '#a', optional: 1 }], 'steps.0.optional'],
    ['an unknown field', [{ action: 'click', selector: '#a', force: true }], 'steps.0.force'],
    ['an index out of place', [{ index: 3, action: 'click', selector: '#a' }], 'steps.0.index'],
    ['steps not an array', { action: 'click' }, 'steps'],
    ['an unknown selector prefix', [{ action: 'click', selector: [['#a'], ['shadow/b']] }], 'steps.0.selector.1.0'],
    ['an empty list of alternatives', [{ action: 'hover', selector: [] }], 'steps.0.selector'],
    ['a frame path that is not indexes', [{ action: 'click', selector: ['#a'], frame: ['x'] }], 'steps.0.frame.0'],
    ['a click count of 4', [{ action: 'click', selector: '#a', clickCount: 4 }], 'steps.0.clickCount'],
    ['waitFor count without a selector', [{ action: 'waitFor', ms: 1, count: 2 }], 'steps.0.count'],
    ['waitFor with an expression and ms', [{ action: 'waitFor', expression: 'true', ms: 1 }], 'steps.0.selector'],
    ['a tiny viewport', [{ action: 'setViewport', width: 10, height: 600 }], 'steps.0.width'],
    ['a viewport past 3840x2160', [{ action: 'setViewport', width: 3840, height: 2161 }], 'steps.0.height'],
  ])('rejects %s with a 400 naming the field', async (_case, steps, field) => {
    const res = await put(await newBot(), steps);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(field);
  });

  it('refuses waitFor properties nested deeper than 10 levels, however deep', async () => {
    const deep = `${'{"a":'.repeat(2_000)}1${'}'.repeat(2_000)}`;
    const res = await request(h.app)
      .put(`/api/v1/bots/${await newBot()}/steps`)
      .set(org.auth('write'))
      .set('Content-Type', 'application/json')
      .send(`{"steps":[{"action":"waitFor","selector":"#a","properties":${deep}}]}`);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      { path: 'steps.0.properties', message: 'must not nest deeper than 10 levels', in: 'body' },
    ]);
  });

  it('refuses more than 500 steps', async () => {
    const res = await put(
      await newBot(),
      Array.from({ length: 501 }, () => ({ action: 'scroll' })),
    );
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].path).toBe('steps');
  });
});

describe('Chrome Recorder recordings', () => {
  const importRecording = (botId: string, body: unknown, key: 'read' | 'write' = 'write') =>
    request(h.app)
      .post(`/api/v1/bots/${botId}/steps/import`)
      .set(org.auth(key))
      .send(body as object);
  const getSteps = async (botId: string) =>
    (await request(h.app).get(`/api/v1/bots/${botId}/steps`).set(org.auth('read'))).body.data;
  const scripts = async (botId: string) =>
    (await request(h.app).get(`/api/v1/bots/${botId}/scripts`).set(org.auth('read'))).body.data;

  const RECORDING = {
    title: 'Buy',
    steps: [
      {
        type: 'setViewport',
        width: 800,
        height: 600,
        deviceScaleFactor: 1,
        isMobile: false,
        hasTouch: false,
        isLandscape: false,
      },
      { type: 'navigate', url: 'https://a.example/' },
      {
        type: 'click',
        target: 'main',
        selectors: [['aria/Buy[role="button"]'], ['#buy'], ['xpath//html/body/button']],
        offsetX: 3,
        offsetY: 4,
        assertedEvents: [{ type: 'navigation', url: 'https://a.example/done', title: '' }],
      },
      { type: 'change', selectors: [['#q']], value: 'x', target: 'main', chromeAddedThis: 1 },
      { type: 'close', target: 'main' },
    ],
  };

  it('replaces the steps with the converted ones, regenerates the script, and warns about what it skipped', async () => {
    const botId = await h.newBot(org, { targetUrl: 'https://a.example/' });
    await put(botId, [{ action: 'click', selector: '#old' }]);
    const res = await importRecording(botId, RECORDING);
    expect(res.status).toBe(200);
    const expected = [
      { index: 0, action: 'setViewport', width: 800, height: 600 },
      {
        index: 1,
        action: 'click',
        selector: [['aria/Buy[role="button"]'], ['#buy'], ['xpath//html/body/button']],
        waitForNavigation: { url: 'https://a.example/done' },
      },
      { index: 2, action: 'fill', selector: [['#q']], value: 'x', keystrokes: true },
    ];
    expect(res.body).toEqual({
      data: expected,
      warnings: [
        { recordingStep: 3, message: "field 'chromeAddedThis' is not supported and was ignored" },
        { recordingStep: 4, message: "step type 'close' is not supported and was skipped" },
      ],
    });
    expect(await getSteps(botId)).toEqual(expected);
    const generated = (await scripts(botId)).find((s: { origin: string }) => s.origin === 'generated');
    expect(generated.source).toContain('locateElement(page, [["aria/Buy[role=\\"button\\"]"], ["#buy"]');
    expect(generated.source).toContain('page.waitForNavigation({ url: "https://a.example/done" })');
  });

  it('exports the steps as a recording that imports back to the same steps', async () => {
    const botId = await h.newBot(org, { name: 'Shop bot', targetUrl: 'https://a.example/' });
    const imported = (await importRecording(botId, RECORDING)).body.data;
    const exported = await request(h.app).get(`/api/v1/bots/${botId}/steps?format=recorder`).set(org.auth('read'));
    expect(exported.status).toBe(200);
    expect(exported.body.title).toBe('Shop bot');
    expect(exported.body.steps[0]).toEqual({ type: 'navigate', url: 'https://a.example/' });
    const again = await importRecording(botId, exported.body);
    expect(again.body).toEqual({ data: imported, warnings: [] });
    expect((await request(h.app).get(`/api/v1/bots/${botId}/steps?format=yaml`).set(org.auth('read'))).status).toBe(
      400,
    );
  });

  const click = { type: 'click', target: 'main', selectors: [['#a']], offsetX: 1, offsetY: 1 };
  it.each([
    ['not an object', [1, 2], 'validation_error', '(root)'],
    ['a JSON string', '"recording"', 'validation_error', undefined],
    ['not JSON', '{"title": ', 'invalid_json', undefined],
    ['steps not an array', { title: 't', steps: { 0: click } }, 'validation_error', 'steps'],
    ['no title', { steps: [click] }, 'validation_error', 'title'],
    ['a step that is not an object', { title: 't', steps: [click, 'click'] }, 'validation_error', 'steps.1'],
    [
      'a customStep',
      { title: 't', steps: [click, { type: 'customStep', name: 'x', parameters: {} }] },
      'invalid_recording',
      'steps.1',
    ],
    ['an unknown step type', { title: 't', steps: [{ type: 'drag' }] }, 'invalid_recording', 'steps.0'],
    [
      'another target',
      { title: 't', steps: [{ ...click, target: 'https://popup.example' }] },
      'invalid_recording',
      'steps.0.target',
    ],
    [
      'an unknown selector prefix',
      { title: 't', steps: [{ ...click, selectors: [['#a'], ['shadow/b']] }] },
      'invalid_recording',
      'steps.0.selectors.1.0',
    ],
    [
      'a click without offsets',
      { title: 't', steps: [{ type: 'click', selectors: [['#a']] }] },
      'invalid_recording',
      'steps.0',
    ],
    ['a back button', { title: 't', steps: [{ ...click, button: 'back' }] }, 'invalid_recording', 'steps.0.button'],
    ['a timeout out of range', { title: 't', timeout: -5, steps: [click] }, 'invalid_recording', 'timeout'],
    [
      'an unknown asserted event',
      { title: 't', steps: [{ ...click, assertedEvents: [{ type: 'dialog' }] }] },
      'invalid_recording',
      'steps.0',
    ],
  ])('refuses %s with a 4xx envelope and leaves the steps as they were', async (_case, body, code, path) => {
    const botId = await newBot();
    await put(botId, [{ action: 'click', selector: '#kept' }]);
    const before = await scripts(botId);
    const res =
      typeof body === 'string'
        ? await request(h.app)
            .post(`/api/v1/bots/${botId}/steps/import`)
            .set(org.auth('write'))
            .set('Content-Type', 'application/json')
            .send(body)
        : await importRecording(botId, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(code);
    if (path !== undefined) expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    expect(await getSteps(botId)).toEqual([{ index: 0, action: 'click', selector: '#kept' }]);
    expect(await scripts(botId)).toEqual(before);
  });

  it('names the refused step type as the contract says', async () => {
    const res = await importRecording(await newBot(), {
      title: 't',
      steps: [click, click, click, click, { type: 'customStep', name: 'x', parameters: {} }],
    });
    expect(res.body.error).toEqual({
      code: 'invalid_recording',
      message: "The recording cannot be run: steps.4: step type 'customStep' is not supported",
      details: [{ path: 'steps.4', message: "step type 'customStep' is not supported" }],
    });
  });

  it('takes recordings up to 5 MiB and answers 413 past that', async () => {
    const botId = await newBot();
    const padded = (bytes: number) => ({ ...RECORDING, padding: 'x'.repeat(bytes) });
    const big = await importRecording(botId, padded(3 * 1024 * 1024));
    expect(big.status).toBe(200);
    expect(big.body.warnings).toContainEqual({
      recordingStep: null,
      message: "field 'padding' is not supported and was ignored",
    });
    const huge = await importRecording(botId, padded(5 * 1024 * 1024));
    expect(huge.status).toBe(413);
    expect(huge.body.error.code).toBe('payload_too_large');
    // Other routes keep the API's own limit.
    const put2 = await request(h.app)
      .put(`/api/v1/bots/${botId}/steps`)
      .set(org.auth('write'))
      .send({ steps: [], padding: 'x'.repeat(2 * 1024 * 1024) });
    expect(put2.status).toBe(413);
  });

  it('needs write permission and hides other organizations’ bots', async () => {
    const botId = await newBot();
    expect((await importRecording(botId, RECORDING, 'read')).status).toBe(403);
    const stranger = await h.newOrg();
    const res = await request(h.app)
      .post(`/api/v1/bots/${botId}/steps/import`)
      .set(stranger.auth('write'))
      .send(RECORDING);
    expect(res.status).toBe(404);
    expect(
      (await request(h.app).get(`/api/v1/bots/${botId}/steps?format=recorder`).set(stranger.auth('read'))).status,
    ).toBe(404);
  });
});

describe('the OpenAPI document', () => {
  it('describes the recording body once, shared by both routes that take it, and the import response', async () => {
    const doc = (await request(h.app).get('/api/v1/openapi.json')).body;
    const ref = { $ref: '#/components/schemas/Recording' };
    const imported = doc.paths['/bots/{botId}/steps/import'].post;
    expect(imported.requestBody.content['application/json'].schema).toEqual(ref);
    expect(imported['x-permission']).toBe('write');
    expect(imported.responses['413']).toBeDefined();
    const response = imported.responses['200'].content['application/json'].schema;
    expect(Object.keys(response.properties)).toEqual(['data', 'warnings']);
    expect(response.properties.warnings.items.properties).toHaveProperty('recordingStep');
    const createBot = doc.paths['/bots'].post.requestBody.content['application/json'].schema;
    expect(createBot.properties.recording).toMatchObject(ref);
    expect(doc.components.schemas.Recording.required).toEqual(['title', 'steps']);
    expect(doc.components.schemas.Recording.properties.steps.items).toEqual({
      $ref: '#/components/schemas/RecordingStep',
    });
    expect(doc.components.schemas.RecordingStep.properties.type.description).toContain('waitForElement');
    const format = doc.paths['/bots/{botId}/steps'].get.parameters.find((p: { name: string }) => p.name === 'format');
    expect(format.schema.enum).toEqual(['botfleet', 'recorder']);
  });
});
