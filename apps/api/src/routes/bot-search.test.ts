import { encodeBotListCursor, encodeCursor } from '@botfleet/core';
import request from 'supertest';
import { useApiHarness, type ApiHarness, type TestOrg } from '../testing/api-harness';

// GET /bots: q, tag, status, sort, keyset pagination per sort, and each bot's last run and
// schedule (docs/bot-search.md). Every test makes the organization it lists.

let h: ApiHarness;
useApiHarness((harness) => {
  h = harness;
});

interface ListedBot {
  id: string;
  name: string;
  targetUrl: string;
  tags: string[];
  status: string;
  createdAt: number;
  lastRunAt: number | null;
  lastExecution: { id: string; status: string; createdAt: number; completedAt: number | null } | null;
  schedule: {
    active: boolean;
    interval: number | null;
    cron: string | null;
    timezone: string;
    nextRunAt: number | null;
  } | null;
}

const list = (org: TestOrg, query: string) => request(h.app).get(`/api/v1/bots?${query}`).set(org.auth('read'));

async function ids(org: TestOrg, query: string): Promise<string[]> {
  const res = await list(org, query);
  expect(res.status).toBe(200);
  return (res.body.data as ListedBot[]).map((b) => b.id);
}

/** Every page of a listing, following nextCursor, with the pages' sizes. */
async function allPages(org: TestOrg, query: string): Promise<{ ids: string[]; sizes: number[] }> {
  const seen: string[] = [];
  const sizes: number[] = [];
  let cursor: string | null = null;
  do {
    const res = await list(org, `${query}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    seen.push(...(res.body.data as ListedBot[]).map((b) => b.id));
    sizes.push(res.body.data.length);
    cursor = res.body.nextCursor;
    expect(sizes.length).toBeLessThan(100);
  } while (cursor);
  return { ids: seen, sizes };
}

describe('each bot carries its last run and schedule', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await h.newOrg();
  });

  it('null before it runs or is scheduled, then the newest run and the schedule, in the list and in GET /bots/:botId alike', async () => {
    const botId = await h.newBot(org, { name: 'Watched' });
    const fresh = (await list(org, '')).body.data.find((b: ListedBot) => b.id === botId);
    expect(fresh).toMatchObject({ lastRunAt: null, lastExecution: null, schedule: null });

    const first = await request(h.app).post(`/api/v1/bots/${botId}/executions`).set(org.auth('write')).send({});
    const second = await request(h.app).post(`/api/v1/bots/${botId}/executions`).set(org.auth('write')).send({});
    expect([first.status, second.status]).toEqual([202, 202]);
    const schedule = await request(h.app)
      .put(`/api/v1/bots/${botId}/schedule`)
      .set(org.auth('write'))
      .send({ cron: '0 9 * * *', timezone: 'Europe/Paris', active: true });
    expect(schedule.status).toBe(200);

    const listed = (await list(org, '')).body.data.find((b: ListedBot) => b.id === botId) as ListedBot;
    const newest = await h.db.execution.findUniqueOrThrow({ where: { id: second.body.executionId } });
    expect(listed.lastExecution).toEqual({
      id: second.body.executionId,
      status: 'pending',
      createdAt: newest.createdAt.getTime(),
      completedAt: null,
    });
    expect(listed.lastRunAt).toBe(newest.createdAt.getTime());
    expect(listed.schedule).toEqual({
      active: true,
      interval: null,
      cron: '0 9 * * *',
      timezone: 'Europe/Paris',
      nextRunAt: schedule.body.nextRunAt,
    });
    expect(listed.schedule?.nextRunAt).toEqual(expect.any(Number));

    const detail = await request(h.app).get(`/api/v1/bots/${botId}`).set(org.auth('read'));
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject(listed);

    // A paused bot's schedule does not fire: no next run, as GET /bots/:botId/schedule says.
    const paused = await request(h.app)
      .patch(`/api/v1/bots/${botId}`)
      .set(org.auth('write'))
      .send({ status: 'paused' });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ status: 'paused', lastExecution: listed.lastExecution });
    expect(paused.body.schedule).toEqual({ ...listed.schedule, nextRunAt: null });
  });

  it('keeps lastRunAt when retention deletes the newest run; lastExecution shows the newest still kept', async () => {
    const botId = await h.newBot(org, { name: 'Retained' });
    const older = await request(h.app).post(`/api/v1/bots/${botId}/executions`).set(org.auth('write')).send({});
    const newer = await request(h.app).post(`/api/v1/bots/${botId}/executions`).set(org.auth('write')).send({});
    const ranAt = (await h.db.execution.findUniqueOrThrow({ where: { id: newer.body.executionId } })).createdAt;
    await h.db.execution.delete({ where: { id: newer.body.executionId } });
    const detail = await request(h.app).get(`/api/v1/bots/${botId}`).set(org.auth('read'));
    expect(detail.body.lastRunAt).toBe(ranAt.getTime());
    expect(detail.body.lastExecution.id).toBe(older.body.executionId);
  });
});

describe('q, tag and status', () => {
  let org: TestOrg;
  let other: TestOrg;
  const bots: Record<string, string> = {};
  beforeAll(async () => {
    org = await h.newOrg();
    other = await h.newOrg();
    const make = async (key: string, fields: Record<string, unknown>) => {
      bots[key] = await h.newBot(org, fields);
    };
    await make('prices', { name: 'Daily PRICES', targetUrl: 'https://shop.example/a', tags: ['shop', 'daily'] });
    await make('stock', { name: 'Stock check', targetUrl: 'https://warehouse.example/prices', tags: ['shop'] });
    await make('news', { name: 'News', targetUrl: 'https://news.example/', tags: ['daily', 'news'] });
    await make('percent', { name: '100% off_sale', targetUrl: 'https://deals.example/', tags: [] });
    await make('paused', { name: 'Old prices', targetUrl: 'https://old.example/', tags: ['shop', 'daily'] });
    await request(h.app).patch(`/api/v1/bots/${bots.paused}`).set(org.auth('write')).send({ status: 'paused' });
    // Another organization's bots match every filter below and must never show.
    await h.newBot(other, {
      name: 'Daily prices elsewhere',
      targetUrl: 'https://shop.example/',
      tags: ['shop', 'daily'],
    });
  });

  const found = async (query: string) => (await ids(org, query)).sort();
  const keys = (...names: string[]) => names.map((n) => bots[n]!).sort();

  it('lists everything without filters, and only the organization’s', async () => {
    expect(await found('')).toEqual(keys('prices', 'stock', 'news', 'percent', 'paused'));
  });

  it.each([
    ['a name, ignoring case', 'q=prices', ['prices', 'stock', 'paused']],
    ['a part of a name', 'q=ILY%20PR', ['prices']],
    ['a targetUrl', 'q=warehouse.example', ['stock']],
    ['nothing', 'q=nowhere', []],
    ['an empty q, as no filter', 'q=', ['prices', 'stock', 'news', 'percent', 'paused']],
    ['% as itself', 'q=100%25', ['percent']],
    ['_ as itself', 'q=f_s', ['percent']],
    ['a wildcard that would match anything', 'q=%25', ['percent']],
    ['one tag', 'tag=shop', ['prices', 'stock', 'paused']],
    ['every one of several tags', 'tag=shop&tag=daily', ['prices', 'paused']],
    ['a tag no bot has', 'tag=none', []],
    ['a status', 'status=paused', ['paused']],
    ['all three', 'q=prices&tag=daily&status=active', ['prices']],
    ['a tag and a status', 'tag=daily&status=active', ['prices', 'news']],
  ])('finds by %s', async (_case, query, expected) => {
    expect(await found(query)).toEqual(keys(...expected));
  });

  it('finds a bot by a part of its id', async () => {
    expect(await found(`q=${bots.news!.slice(6, 20).toUpperCase()}`)).toEqual(keys('news'));
  });

  it('never shows another organization’s bot, whatever the filter', async () => {
    const theirs = await ids(other, '');
    for (const query of ['q=elsewhere', `q=${theirs[0]}`, 'tag=shop&tag=daily', 'sort=name', 'sort=-lastRunAt']) {
      expect(await ids(org, query)).not.toEqual(expect.arrayContaining(theirs));
    }
    expect(await ids(org, 'q=elsewhere')).toEqual([]);
  });
});

describe('sort and pagination', () => {
  let org: TestOrg;
  let botIds: string[];
  const T = Date.UTC(2026, 10, 1);

  beforeAll(async () => {
    org = await h.newOrg();
    botIds = [];
    for (let i = 0; i < 13; i++) botIds.push(await h.newBot(org, { name: `bot ${i}` }));
    // Ties on every key: createdAt in threes, names in pairs, lastRunAt in pairs with five that never ran.
    for (const [i, id] of botIds.entries()) {
      await h.db.bot.update({
        where: { id },
        data: {
          createdAt: new Date(T + Math.floor(i / 3) * 1000),
          name: ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta'][Math.floor(i / 2)]!,
          lastRunAt: i % 3 === 2 || i === 12 ? null : new Date(T + Math.floor(i / 4) * 60_000),
        },
      });
    }
  });

  async function expectedOrder(sort: string): Promise<string[]> {
    const rows = await h.db.bot.findMany({ where: { organizationId: org.id } });
    const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    const cmp: Record<string, (a: (typeof rows)[0], b: (typeof rows)[0]) => number> = {
      '-createdAt': (a, b) => b.createdAt.getTime() - a.createdAt.getTime() || byId(b, a),
      createdAt: (a, b) => a.createdAt.getTime() - b.createdAt.getTime() || byId(a, b),
      // Lowercase ASCII names: every collation orders them as JavaScript does.
      name: (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : byId(a, b)),
      '-lastRunAt': (a, b) =>
        (b.lastRunAt?.getTime() ?? -Infinity) - (a.lastRunAt?.getTime() ?? -Infinity) || byId(b, a),
    };
    return rows.sort(cmp[sort]).map((b) => b.id);
  }

  it.each([
    ['-createdAt', ''],
    ['-createdAt', 'sort=-createdAt&'],
    ['createdAt', 'sort=createdAt&'],
    ['name', 'sort=name&'],
    ['-lastRunAt', 'sort=-lastRunAt&'],
  ])('%s (%s): every page in order, no duplicate, no gap, ties and never-run bots included', async (sort, query) => {
    const expected = await expectedOrder(sort);
    for (const limit of [1, 2, 5, 13, 100]) {
      const { ids: seen, sizes } = await allPages(org, `${query}limit=${limit}`);
      expect(seen).toEqual(expected);
      expect(sizes.slice(0, -1).every((n) => n === limit)).toBe(true);
    }
  });

  it('sorts the filtered bots and pages through them', async () => {
    // q=ta: beta, delta, zeta and eta (targetUrl https://a.example has no "ta"); the tag drops one more.
    const matching = (await expectedOrder('-lastRunAt')).filter((id) =>
      [2, 3, 6, 7, 10, 11, 12].includes(botIds.indexOf(id)),
    );
    await h.db.bot.update({ where: { id: botIds[3]! }, data: { tags: ['excluded'] } });
    for (const id of matching) if (id !== botIds[3]) await h.db.bot.update({ where: { id }, data: { tags: ['kept'] } });
    const expected = matching.filter((id) => id !== botIds[3]);
    expect(expected).toHaveLength(6);
    for (const sort of ['-lastRunAt', 'name', 'createdAt']) {
      const order = (await expectedOrder(sort)).filter((id) => expected.includes(id));
      expect((await allPages(org, `sort=${sort}&tag=kept&q=TA&limit=2`)).ids).toEqual(order);
    }
  });

  it('continues a cursor issued before sorting existed as newest first', async () => {
    const expected = await expectedOrder('-createdAt');
    const [first] = await h.db.bot.findMany({ where: { id: expected[0]! } });
    const legacy = encodeCursor({ createdAt: first!.createdAt.getTime(), id: first!.id });
    expect(await ids(org, `limit=100&cursor=${legacy}`)).toEqual(expected.slice(1));
  });
});

describe('bad values answer the envelope and a 400', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await h.newOrg();
  });

  const nameCursor = encodeBotListCursor({ sort: 'name', key: 'alpha', id: 'bot_0000000000000000000000000a' });

  it.each([
    ['an unknown sort', 'sort=updatedAt', 'sort'],
    ['a sort of a field the API does not sort by descending', 'sort=-name', 'sort'],
    ['an unknown status', 'status=deleted', 'status'],
    ['two statuses', 'status=active&status=paused', 'status'],
    ['a q longer than any name or URL searched', `q=${'x'.repeat(201)}`, 'q'],
    ['two q', 'q=a&q=b', 'q'],
    ['an empty tag', 'tag=', 'tag.0'],
    ['a tag longer than any bot’s', `tag=${'x'.repeat(65)}`, 'tag.0'],
    ['more tags than a bot can carry', Array.from({ length: 51 }, (_, i) => `tag=t${i}`).join('&'), 'tag'],
    ['a limit of 0', 'limit=0', 'limit'],
    ['a limit over 100', 'limit=101', 'limit'],
    ['a cursor the API did not issue', 'cursor=not-a-cursor', 'cursor'],
    ['a cursor of another sort', `sort=-lastRunAt&cursor=${nameCursor}`, 'cursor'],
    [
      'a cursor of the default sort used with another',
      `sort=name&cursor=${encodeCursor({ createdAt: 1, id: 'bot_0000000000000000000000000a' })}`,
      'cursor',
    ],
    ['an unknown parameter', 'search=x', 'search'],
    ['a NUL in q (PostgreSQL text cannot hold it)', 'q=a%00b', 'q'],
    ['a NUL in a tag', 'tag=a%00', 'tag'],
  ])('%s', async (_case, query, field) => {
    const res = await list(org, query);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(field);
  });
});
