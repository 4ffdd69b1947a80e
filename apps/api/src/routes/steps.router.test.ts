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
  ])('rejects %s with a 400 naming the field', async (_case, steps, field) => {
    const res = await put(await newBot(), steps);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(field);
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
