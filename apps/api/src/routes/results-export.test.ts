import { createPrismaClient } from '@botfleet/db';
import { createTestExecution, testDatabaseUrl } from '@botfleet/db/testing';
import { createLogger } from '@botfleet/io';
import { startPgBouncer, waitUntil } from '@botfleet/testkit';
import { randomBytes } from 'node:crypto';
import { createServer, get, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import request from 'supertest';
import { botRunPages, EXPORT_PAGE_ROWS } from '../services/results-export';
import { useApiHarness, type ApiHarness, type TestOrg } from '../testing/api-harness';

/*
 * Results exports (GET /bots/:botId/results, GET /executions/:id/extract?format=) against real
 * PostgreSQL: what each format holds, how `fields`, `itemsPath`, `from` and `to` shape it, the
 * envelope for bad queries, and that the answer streams from the database as the client reads.
 */

let h: ApiHarness;
let org: TestOrg;
useApiHarness((harness, first) => {
  h = harness;
  org = first;
});

const T0 = Date.parse('2026-01-01T00:00:00Z');

/** A completed run of the bot with this data, completed `offsetMs` after T0. */
async function run(botId: string, data: unknown, offsetMs: number, organizationId = org.id): Promise<string> {
  const execution = await createTestExecution(h.db, { botId, organizationId, completed: { extractedData: data } });
  await h.db.execution.update({ where: { id: execution.id }, data: { completedAt: new Date(T0 + offsetMs) } });
  return execution.id;
}

const results = (botId: string, query = '') =>
  request(h.app).get(`/api/v1/bots/${botId}/results${query}`).set(org.auth('read'));

/** A response's body as text, whatever its content type (supertest only buffers text/* and JSON). */
const textOf = (res: request.Response): string =>
  typeof res.text === 'string' && res.text !== '' ? res.text : Buffer.from(res.body as Buffer).toString('utf8');

const asText = (req: request.Test) =>
  req.buffer(true).parse((res, done) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => done(null, Buffer.concat(chunks)));
  });

describe('GET /api/v1/bots/:botId/results', () => {
  let botId: string;
  let ids: string[];
  beforeAll(async () => {
    botId = await h.newBot(org, { name: 'catalogue' });
    // Written out of order: the export orders by completedAt, then id.
    const second = await run(botId, { title: 'Boots, "hiking"', price: 49.9, tags: ['a', 'b'] }, 2_000);
    const first = await run(botId, { title: 'Hat', price: 10, stock: { count: 3, inStore: true } }, 1_000);
    const third = await run(botId, ['not', 'an', 'object'], 3_000);
    ids = [first, second, third];
    // Neither another bot's runs, nor unfinished or failed ones, nor a completed run without data.
    await run(await h.newBot(org, { name: 'other' }), { title: 'elsewhere' }, 1_500);
    await createTestExecution(h.db, { botId, organizationId: org.id });
    const failed = await createTestExecution(h.db, { botId, organizationId: org.id });
    await h.db.execution.update({ where: { id: failed.id }, data: { status: 'failed', completedAt: new Date(T0) } });
    await run(botId, null, 2_500);
  });

  it('streams a JSON array of records, oldest first, each with executionId and completedAt first', async () => {
    const res = await results(botId);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${botId}-results.json"`);
    expect(res.body).toEqual([
      { executionId: ids[0], completedAt: T0 + 1_000, title: 'Hat', price: 10, stock: { count: 3, inStore: true } },
      { executionId: ids[1], completedAt: T0 + 2_000, title: 'Boots, "hiking"', price: 49.9, tags: ['a', 'b'] },
      { executionId: ids[2], completedAt: T0 + 3_000, value: ['not', 'an', 'object'] },
    ]);
    expect(Object.keys(res.body[0] as object).slice(0, 2)).toEqual(['executionId', 'completedAt']);
  });

  it('streams JSON Lines: one record per line', async () => {
    const res = await asText(results(botId, '?format=jsonl'));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${botId}-results.jsonl"`);
    const lines = textOf(res).split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((line) => JSON.parse(line) as { executionId: string }).map((r) => r.executionId)).toEqual(ids);
  });

  it('writes RFC 4180 CSV: the union of flattened names as header, CRLF, quoting and doubled quotes', async () => {
    const res = await asText(results(botId, '?format=csv'));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${botId}-results.csv"`);
    expect(textOf(res)).toBe(
      [
        // First seen, in jsonb's key order (shorter keys first), which is how PostgreSQL keeps objects.
        'executionId,completedAt,price,stock.count,stock.inStore,title,tags.0,tags.1,value.0,value.1,value.2',
        `${ids[0]},${T0 + 1_000},10,3,true,Hat,,,,,`,
        `${ids[1]},${T0 + 2_000},49.9,,,"Boots, ""hiking""",a,b,,,`,
        `${ids[2]},${T0 + 3_000},,,,,,,not,an,object`,
        '',
      ].join('\r\n'),
    );
  });

  it('quotes fields holding a comma, a quote, CR, LF or CRLF, and leaves others bare', async () => {
    const quoting = await h.newBot(org, { name: 'quoting' });
    const id = await run(
      quoting,
      { a: 'x,y', b: 'say "hi"', c: 'one\ntwo', d: 'cr\ronly', e: 'crlf\r\nend', f: 'plain' },
      0,
    );
    const res = await asText(results(quoting, '?format=csv'));
    expect(textOf(res)).toBe(
      `executionId,completedAt,a,b,c,d,e,f\r\n${id},${T0},"x,y","say ""hi""","one\ntwo","cr\ronly","crlf\r\nend",plain\r\n`,
    );
  });

  it('keeps only `fields`, in their order and under their names; absent ones are null (JSON) or empty (CSV)', async () => {
    const json = await results(botId, '?fields=price,executionId,stock.count,tags.1,missing');
    expect(json.body).toEqual([
      { price: 10, executionId: ids[0], 'stock.count': 3, 'tags.1': null, missing: null },
      { price: 49.9, executionId: ids[1], 'stock.count': null, 'tags.1': 'b', missing: null },
      { price: null, executionId: ids[2], 'stock.count': null, 'tags.1': null, missing: null },
    ]);
    expect(Object.keys(json.body[0] as object)).toEqual(['price', 'executionId', 'stock.count', 'tags.1', 'missing']);
    // In CSV a named field holding an object or an array is its JSON.
    const csv = await asText(results(botId, `?format=csv&fields=${encodeURIComponent('title, stock ,tags')}`));
    expect(textOf(csv)).toBe(
      [
        'title,stock,tags',
        'Hat,"{""count"":3,""inStore"":true}",',
        '"Boots, ""hiking""",,"[""a"",""b""]"',
        ',,',
        '',
      ].join('\r\n'),
    );
  });

  it('cuts runs into items with itemsPath: scalars under value, a missing list contributes nothing', async () => {
    const shop = await h.newBot(org, { name: 'shop' });
    const a = await run(shop, { page: 1, products: [{ name: 'Boots', price: 49.9 }, 'loose'] }, 0);
    await run(shop, { page: 2 }, 1);
    await run(shop, { page: 3, products: null }, 2);
    const d = await run(shop, { products: { name: 'Single' } }, 3);
    const res = await results(shop, '?itemsPath=products');
    expect(res.body).toEqual([
      { executionId: a, completedAt: T0, name: 'Boots', price: 49.9 },
      { executionId: a, completedAt: T0, value: 'loose' },
      { executionId: d, completedAt: T0 + 3, name: 'Single' },
    ]);
    const csv = await asText(results(shop, '?itemsPath=products&format=csv&fields=executionId,name'));
    expect(textOf(csv)).toBe(`executionId,name\r\n${a},Boots\r\n${a},\r\n${d},Single\r\n`);
    // `.`: the data itself is the list.
    const lists = await h.newBot(org, { name: 'lists' });
    const e = await run(lists, [{ name: 'Root item' }, 7], 4);
    const root = await results(lists, '?itemsPath=.');
    expect(root.body).toEqual([
      { executionId: e, completedAt: T0 + 4, name: 'Root item' },
      { executionId: e, completedAt: T0 + 4, value: 7 },
    ]);
  });

  it('filters by completedAt: from inclusive, to exclusive, as ISO 8601 or Unix ms', async () => {
    const iso = (ms: number) => new Date(T0 + ms).toISOString();
    const idsOf = async (query: string) =>
      ((await results(botId, query)).body as { executionId: string }[]).map((r) => r.executionId);
    expect(await idsOf(`?from=${iso(2_000)}`)).toEqual([ids[1], ids[2]]);
    expect(await idsOf(`?to=${iso(2_000)}`)).toEqual([ids[0]]);
    expect(await idsOf(`?from=${T0 + 1_000}&to=${T0 + 3_000}`)).toEqual([ids[0], ids[1]]);
    expect(await idsOf(`?from=${encodeURIComponent('2026-01-01T01:00:02+01:00')}`)).toEqual([ids[1], ids[2]]);
    expect(await idsOf('?from=2026-01-02')).toEqual([]);
  });

  it('answers an empty export with an empty array, and a CSV with only its header', async () => {
    const empty = await h.newBot(org, { name: 'never ran' });
    expect((await results(empty)).body).toEqual([]);
    expect(textOf(await asText(results(empty, '?format=csv')))).toBe('executionId,completedAt\r\n');
    expect(textOf(await asText(results(empty, '?format=csv&fields=a,b')))).toBe('a,b\r\n');
    expect(textOf(await asText(results(empty, '?format=jsonl')))).toBe('');
  });

  it.each([
    ['?format=xml', 'format'],
    ['?fields=', 'fields'],
    ['?fields=a,,b', 'fields'],
    ['?fields=a,', 'fields'],
    ['?fields=a..b', 'fields'],
    ['?fields=a,b,a', 'fields'],
    [`?fields=${Array.from({ length: 501 }, (_, i) => `f${i}`).join(',')}`, 'fields'],
    ['?from=yesterday', 'from'],
    ['?from=2026-01-01T00:00:00', 'from'],
    ['?to=2026-02-30', 'to'],
    ['?from=2026-01-02&to=2026-01-01', 'to'],
    ['?itemsPath=products..name', 'itemsPath'],
    ['?itemsPath=', 'itemsPath'],
    ['?limit=5', 'limit'],
  ])('refuses %s with the envelope naming %s', async (query, field) => {
    const res = await results(botId, query);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.error).toMatchObject({ code: 'validation_error', message: expect.any(String) });
    expect(res.body.error.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: field, in: 'query' })]),
    );
  });

  it('asks for `fields` before sending anything when a CSV would have more than 2,000 columns', async () => {
    const wide = await h.newBot(org, { name: 'wide' });
    await run(wide, { row: Array.from({ length: 1_500 }, (_, i) => i) }, 0);
    await run(wide, { other: Array.from({ length: 600 }, (_, i) => i) }, 1);
    const res = await results(wide, '?format=csv');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_error', details: [{ path: 'fields', in: 'query' }] });
    expect(res.body.error.message).toMatch(/more than 2000 distinct columns/);
    const named = await asText(results(wide, '?format=csv&fields=row.1499,other.0'));
    expect(textOf(named)).toBe('row.1499,other.0\r\n1499,\r\n,0\r\n');
  });

  it("answers 404 for another organization's bot, and 401 without a key", async () => {
    const stranger = await h.newOrg();
    const res = await request(h.app).get(`/api/v1/bots/${botId}/results`).set(stranger.auth('read'));
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect((await request(h.app).get(`/api/v1/bots/${botId}/results`)).status).toBe(401);
  });
});

describe('GET /api/v1/executions/:executionId/extract?format=', () => {
  let executionId: string;
  beforeAll(async () => {
    const botId = await h.newBot(org, { name: 'one run' });
    executionId = await run(botId, { page: 'x', items: [{ name: 'A, B', n: 1 }, { name: 'C' }] }, 5);
  });
  const extract = (query = '') =>
    request(h.app).get(`/api/v1/executions/${executionId}/extract${query}`).set(org.auth('read'));

  it('keeps answering `{ data }` as JSON by default', async () => {
    const res = await extract();
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toBeUndefined();
    expect(res.body).toEqual({ data: { page: 'x', items: [{ name: 'A, B', n: 1 }, { name: 'C' }] } });
    expect((await extract('?format=json')).body).toEqual(res.body);
  });

  it('answers CSV and JSON Lines records, with itemsPath and fields', async () => {
    const csv = await asText(extract('?format=csv'));
    expect(csv.headers['content-disposition']).toBe(`attachment; filename="${executionId}-extract.csv"`);
    expect(textOf(csv)).toBe(
      `executionId,completedAt,page,items.0.n,items.0.name,items.1.name\r\n${executionId},${T0 + 5},x,1,"A, B",C\r\n`,
    );
    const items = await asText(extract('?format=csv&itemsPath=items&fields=name,n'));
    expect(textOf(items)).toBe('name,n\r\n"A, B",1\r\nC,\r\n');
    const lines = await asText(extract('?format=jsonl&itemsPath=items'));
    expect(textOf(lines)).toBe(
      `${JSON.stringify({ executionId, completedAt: T0 + 5, n: 1, name: 'A, B' })}\n${JSON.stringify({ executionId, completedAt: T0 + 5, name: 'C' })}\n`,
    );
  });

  it('refuses itemsPath or fields with JSON, and a bad format', async () => {
    for (const query of ['?fields=a', '?format=json&itemsPath=items', '?format=tsv']) {
      const res = await extract(query);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
  });
});

describe('CSV cells a spreadsheet would run as formulas (csvFormulas)', () => {
  const formulas = {
    link: '=HYPERLINK("http://evil.example","x")',
    cmd: "+cmd|' /C calc'!A0",
    sum: '@SUM(A1:A2)',
    dash: '-1+2',
    tab: '\tx',
    cr: '\r=1',
    text: '-2.5',
    number: -2.5,
    plain: 'ok',
  };
  const fields = Object.keys(formulas).join(',');
  let botId: string;
  let executionId: string;
  beforeAll(async () => {
    botId = await h.newBot(org, { name: 'formulas' });
    executionId = await run(botId, { ...formulas, '@key': 'a name too' }, 0);
  });

  it('prefixes them with a quote by default, and leaves plain numbers as they are', async () => {
    const res = await asText(results(botId, `?format=csv&fields=${fields}`));
    expect(res.status).toBe(200);
    expect(textOf(res)).toBe(
      `${fields}\r\n"'=HYPERLINK(""http://evil.example"",""x"")",'+cmd|' /C calc'!A0,'@SUM(A1:A2),'-1+2,'\tx,"'\r=1",-2.5,-2.5,ok\r\n`,
    );
    // A column named by the data is a cell too.
    const discovered = await asText(
      request(h.app).get(`/api/v1/executions/${executionId}/extract?format=csv`).set(org.auth('read')),
    );
    expect(textOf(discovered).split('\r\n')[0]?.split(',')).toContain("'@key");
  });

  it('leaves them raw with csvFormulas=keep', async () => {
    const res = await asText(results(botId, `?format=csv&csvFormulas=keep&fields=${fields}`));
    expect(textOf(res)).toBe(
      `${fields}\r\n"=HYPERLINK(""http://evil.example"",""x"")",+cmd|' /C calc'!A0,@SUM(A1:A2),-1+2,\tx,"\r=1",-2.5,-2.5,ok\r\n`,
    );
    const extract = await asText(
      request(h.app)
        .get(`/api/v1/executions/${executionId}/extract?format=csv&csvFormulas=keep&fields=sum`)
        .set(org.auth('read')),
    );
    expect(textOf(extract)).toBe('sum\r\n@SUM(A1:A2)\r\n');
  });

  it('refuses an unknown value, and csvFormulas without format=csv', async () => {
    const extract = (query: string) =>
      request(h.app).get(`/api/v1/executions/${executionId}/extract${query}`).set(org.auth('read'));
    for (const res of [
      await results(botId, '?format=csv&csvFormulas=sometimes'),
      await results(botId, '?csvFormulas=keep'),
      await results(botId, '?format=jsonl&csvFormulas=neutralise'),
      await extract('?csvFormulas=keep'),
      await extract('?format=csv&csvFormulas=KEEP'),
    ]) {
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(JSON.stringify(res.body.error.details)).toContain('csvFormulas');
    }
  });
});

describe('streaming', () => {
  const RUNS = 5_000;
  let botId: string;
  let server: Server;
  let port: number;
  beforeAll(async () => {
    botId = await h.newBot(org, { name: 'big' });
    // Seeded in one statement; each record is about 8 kB of JSON, 40 MB in all.
    const salt = randomBytes(6).toString('hex');
    await h.db.$executeRaw`
      INSERT INTO "Execution" (id, "botId", "organizationId", status, trigger, params, "createdAt", "startedAt", "completedAt", "updatedAt", "extractedData")
      SELECT 'exe_' || substr(md5(${salt} || i::text), 1, 26), ${botId}, ${org.id}, 'completed', 'api', '{}',
             now(), now(), ${new Date(T0)}::timestamptz + i * interval '1 millisecond', now(),
             jsonb_build_object('n', i, 'pad', repeat('x', 8000))
        FROM generate_series(1, ${RUNS}::int) AS i`;
    server = createServer(h.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const open = (query: string) =>
    new Promise<IncomingMessage>((resolve, reject) => {
      get(
        { host: '127.0.0.1', port, path: `/api/v1/bots/${botId}/results${query}`, headers: org.auth('read') },
        resolve,
      ).on('error', reject);
    });

  it('reads the database as the client reads: runs deleted while it pauses never arrive', async () => {
    const res = await open('?format=jsonl');
    expect(res.statusCode).toBe(200);
    expect(res.headers['transfer-encoding']).toBe('chunked');
    // The client stops reading after the first chunk. A server that read everything at once
    // would already hold the last runs; one that waits for the client has not read them yet.
    const firstChunk = await new Promise<Buffer>((resolve) =>
      res.once('data', (chunk: Buffer) => {
        res.pause();
        resolve(chunk);
      }),
    );
    await h.db.execution.deleteMany({ where: { botId, completedAt: { gt: new Date(T0 + RUNS / 2) } } });
    // A window for a server that ignores backpressure to race ahead (not a wait for work to finish).
    await new Promise((resolve) => setTimeout(resolve, 500));
    let text = firstChunk.toString('utf8');
    let chunks = 1;
    await new Promise<void>((resolve, reject) => {
      res.pipe(
        new Writable({
          write(chunk: Buffer, _encoding, done) {
            text += chunk.toString('utf8');
            chunks += 1;
            done();
          },
          final(done) {
            resolve();
            done();
          },
        }),
      );
      res.on('error', reject);
    });
    const numbers = text
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { n: number }).n);
    expect(chunks).toBeGreaterThan(10);
    // A prefix of the runs, in order, stopping where the deletion took effect.
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => i + 1));
    expect(numbers.length).toBe(RUNS / 2);
  });

  it('stops reading when the client leaves', async () => {
    const lines: string[] = [];
    const previous = h.deps.logger;
    h.deps.logger = createLogger({
      level: 'debug',
      destination: { write: (line: string) => void lines.push(line) },
    });
    try {
      const res = await open('?format=jsonl');
      await new Promise((resolve) => res.once('data', resolve));
      res.destroy();
      await waitUntil(() => lines.some((line) => line.includes('the client left')), {
        message: 'the export noticed the client left',
      });
    } finally {
      h.deps.logger = previous;
    }
  });
});

describe('behind PgBouncer in transaction mode', () => {
  it('reads every page: each is one statement, no cursor or prepared statement outlives it', async () => {
    const botId = await h.newBot(org, { name: 'pooled' });
    const runs = EXPORT_PAGE_ROWS * 2 + 7;
    const salt = randomBytes(6).toString('hex');
    await h.db.$executeRaw`
      INSERT INTO "Execution" (id, "botId", "organizationId", status, trigger, params, "createdAt", "startedAt", "completedAt", "updatedAt", "extractedData")
      SELECT 'exe_' || substr(md5(${salt} || i::text), 1, 26), ${botId}, ${org.id}, 'completed', 'api', '{}',
             now(), now(), ${new Date(T0)}::timestamptz + (i / 3) * interval '1 millisecond', now(), jsonb_build_object('n', i)
        FROM generate_series(1, ${runs}::int) AS i`;
    const database = decodeURIComponent(new URL(testDatabaseUrl()).pathname.slice(1));
    const bouncer = await startPgBouncer({ databases: [database], poolSize: 2 });
    // As the API runs behind a transaction pooler: DATABASE_PREPARED_STATEMENTS=false.
    const pooled = createPrismaClient(bouncer.url(database), { preparedStatements: false, poolSize: 4 });
    try {
      // Two exports at once on two server connections: pages of one land on either connection.
      const read = async () => {
        const seen: number[] = [];
        for await (const page of botRunPages(pooled, botId, {})()) {
          for (const run of page) seen.push((run.extractedData as { n: number }).n);
        }
        return seen;
      };
      const [first, second] = await Promise.all([read(), read()]);
      // Three runs share each millisecond: the id decides among them, so no run is read twice or missed.
      expect([...first].sort((a, b) => a - b)).toEqual(Array.from({ length: runs }, (_, i) => i + 1));
      expect(second).toEqual(first);
    } finally {
      await pooled.$disconnect();
      await bouncer.stop();
    }
  });
});
