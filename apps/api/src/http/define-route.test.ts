import type { PrismaClient } from '@botfleet/db';
import express, { type Express } from 'express';
import request from 'supertest';
import { z } from 'zod';
import { buildOpenApiDocument } from '../openapi/build-document';
import { BotParams, ExecutionParams } from '../contracts/path-params';
import { botOfCaller } from '../routes/resource-loaders';
import { createApiHarness, type ApiHarness, type TestOrg } from '../testing/api-harness';
import { createAuthenticator } from './authenticate';
import { errorHandler } from './error-handler';
import { jsonBody } from './json-body';
import { mountRoutes } from './mount-routes';
import { defineRoute, type ResourceLoader, type Route } from './route';

/*
 * defineRoute's contract, on a route table of its own: the order of checks (who, what was sent,
 * what exists), resource loaders, and header schemas that validate and document themselves.
 */

let h: ApiHarness;
let owner: TestOrg;
let stranger: TestOrg;
let botId: string;

beforeAll(async () => {
  h = await createApiHarness();
  owner = await h.newOrg();
  stranger = await h.newOrg();
  botId = await h.newBot(owner, { name: 'loaded' });
});
afterAll(() => h.close());

const NoteHeaders = z.object({
  'X-Note-Tag': z
    .string()
    .regex(/^[a-z]{1,20}$/, 'must be 1-20 lowercase letters')
    .describe('Files the note under this tag'),
  'X-Note-Mood': z.enum(['calm', 'urgent']).optional(),
});

const NoteSchema = z.object({
  botId: z.string(),
  botName: z.string(),
  checkedBotId: z.string(),
  text: z.string(),
  tag: z.string(),
  mood: z.enum(['calm', 'urgent']).nullable(),
});

/** Records which loaders ran, to show that a failed loader stops the ones after it. */
const ran: string[] = [];
const recordingLoader: ResourceLoader<{ botId: string }, { checkedBotId: string }> = async ({ params }) => {
  ran.push('second');
  return { checkedBotId: params.botId };
};

const noteRoute = defineRoute(
  {
    method: 'post',
    path: '/bots/:botId/notes',
    operationId: 'addNote',
    tag: 'Notes',
    summary: 'Echo a note about a bot',
    permission: 'write',
    params: BotParams,
    body: z.strictObject({ text: z.string().min(1) }),
    headers: NoteHeaders,
    load: { bot: botOfCaller, check: recordingLoader },
    responses: { 200: { description: 'The note', schema: NoteSchema } },
  },
  // The loaded bot and the parsed headers arrive typed.
  async ({ bot, check, body, headers }) => ({
    status: 200,
    body: {
      botId: bot.id,
      botName: bot.name,
      checkedBotId: check.checkedBotId,
      text: body.text,
      tag: headers['X-Note-Tag'],
      mood: headers['X-Note-Mood'] ?? null,
    },
  }),
);

/** The route table mounted as the app mounts it, on a database handle that counts queries. */
function appFor(routes: Route[]): { app: Express; queries: () => number } {
  let count = 0;
  const counting = h.db.$extends({
    query: {
      async $allOperations({ model, args, query }) {
        if (model !== 'ApiKey') count++;
        return query(args);
      },
    },
  }) as unknown as PrismaClient;
  const app = express();
  app.use(jsonBody({ limitBytes: 64 * 1024, timeoutMs: 5_000 }));
  app.use(
    '/api/v1',
    mountRoutes(routes, {
      db: counting,
      authenticate: createAuthenticator(h.db).authenticate,
      checkRateLimit: async () => undefined,
    }),
  );
  app.use(errorHandler(h.deps.logger));
  return { app, queries: () => count };
}

const post = (app: Express, id: string, who: TestOrg, headers: Record<string, string>, body: object = { text: 'hi' }) =>
  request(app).post(`/api/v1/bots/${id}/notes`).set(who.auth('write')).set(headers).send(body);

describe('resource loaders', () => {
  beforeEach(() => {
    ran.length = 0;
  });

  it('hand the handler the caller’s resource, loaded in declaration order', async () => {
    const { app } = appFor([noteRoute]);
    const res = await post(app, botId, owner, { 'x-note-tag': 'todo', 'X-NOTE-MOOD': 'calm' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ botId, botName: 'loaded', checkedBotId: botId, text: 'hi', tag: 'todo', mood: 'calm' });
    expect(ran).toEqual(['second']);
  });

  it('answer another organization’s bot with the 404 envelope, and stop there', async () => {
    const { app } = appFor([noteRoute]);
    const res = await post(app, botId, stranger, { 'X-Note-Tag': 'todo' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: 'not_found', message: 'Bot not found' } });
    expect(ran).toEqual([]);
  });

  it('answer an id that cannot exist with the same 404 without a database query', async () => {
    const { app, queries } = appFor([noteRoute]);
    const res = await post(app, 'bot_nope', owner, { 'X-Note-Tag': 'todo' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: 'not_found', message: 'Bot not found' } });
    expect(queries()).toBe(0);
    expect(ran).toEqual([]);
  });

  it('run only after what was sent is valid: a bad body or header is a 400 even for a bot that is not yours', async () => {
    const { app, queries } = appFor([noteRoute]);
    expect((await post(app, botId, stranger, { 'X-Note-Tag': 'todo' }, { text: '' })).status).toBe(400);
    expect((await post(app, 'bot_nope', owner, { 'X-Note-Tag': 'TODO' })).status).toBe(400);
    expect(queries()).toBe(0);
  });
});

describe('header schemas', () => {
  it('refuse a bad or missing header with the validation envelope, naming each header', async () => {
    const { app } = appFor([noteRoute]);
    const bad = await post(app, botId, owner, { 'X-Note-Tag': 'Not Lowercase', 'X-Note-Mood': 'sleepy' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toEqual({
      code: 'validation_error',
      message: 'Invalid X-Note-Tag, X-Note-Mood headers',
      details: [
        { path: 'X-Note-Tag', message: 'must be 1-20 lowercase letters', in: 'header' },
        { path: 'X-Note-Mood', message: expect.any(String), in: 'header' },
      ],
    });
    const missing = await post(app, botId, owner, {});
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({
      code: 'validation_error',
      message: 'Invalid X-Note-Tag header',
      details: [{ path: 'X-Note-Tag', in: 'header' }],
    });
  });

  it('keep the Idempotency-Key envelope the API always answered with', async () => {
    const res = await request(h.app)
      .post(`/api/v1/bots/${botId}/executions`)
      .set(owner.auth('write'))
      .set('Idempotency-Key', 'x'.repeat(300))
      .send({});
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: {
        code: 'validation_error',
        message: 'Invalid Idempotency-Key header',
        details: [{ path: 'Idempotency-Key', message: 'must be 1-255 visible ASCII characters', in: 'header' }],
      },
    });
  });

  it('appear in the OpenAPI document as header parameters', async () => {
    const document = buildOpenApiDocument([noteRoute], { version: 'test', serverUrl: 'http://x/api/v1' });
    const operation = document.paths['/bots/{botId}/notes']!.post as { parameters: { in: string }[] };
    expect(operation.parameters.filter((p) => p.in === 'header')).toEqual([
      {
        name: 'X-Note-Tag',
        in: 'header',
        required: true,
        description: 'Files the note under this tag',
        schema: { type: 'string', pattern: '^[a-z]{1,20}$' },
      },
      { name: 'X-Note-Mood', in: 'header', required: false, schema: { type: 'string', enum: ['calm', 'urgent'] } },
    ]);

    const served = await request(h.app).get('/api/v1/openapi.json');
    expect(served.body.paths['/bots/{botId}/executions'].post.parameters).toContainEqual({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'Repeating a key within 24 h returns the first execution (200) instead of starting another',
      schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
    });
  });
});

describe('types', () => {
  it('refuse loaders the route’s path cannot feed, and names the context already uses', () => {
    const responses = { 200: { description: 'ok' } };
    const base = {
      method: 'get',
      path: '/x/:executionId',
      operationId: 'x',
      tag: 'T',
      summary: 's',
      permission: 'read',
      responses,
    } as const;
    // @ts-expect-error botOfCaller needs :botId, which ExecutionParams does not have
    defineRoute({ ...base, params: ExecutionParams, load: { bot: botOfCaller } }, async () => ({ status: 200 }));
    // @ts-expect-error a loaded resource may not shadow `params`
    defineRoute({ ...base, path: '/x/:botId', params: BotParams, load: { params: botOfCaller } }, async () => ({
      status: 200,
    }));
    expect(true).toBe(true);
  });

  it('refuse a handler answer its route does not declare', () => {
    const base = { method: 'get', path: '/x', operationId: 'x', tag: 'T', summary: 's', permission: 'read' } as const;
    const responses = {
      200: { description: 'A note', schema: z.object({ text: z.string() }) },
      204: { description: 'Nothing' },
      409: { description: 'A conflict' },
    };
    defineRoute({ ...base, responses }, async () => ({ status: 200, body: { text: 'declared' } }));
    defineRoute({ ...base, responses }, async () => ({ status: 204 }));
    // @ts-expect-error 201 is not a declared status
    defineRoute({ ...base, responses }, async () => ({ status: 201, body: { text: 'x' } }));
    // @ts-expect-error the 200 body must have the declared shape
    defineRoute({ ...base, responses }, async () => ({ status: 200, body: { words: 'x' } }));
    // @ts-expect-error a 204 declares no body
    defineRoute({ ...base, responses }, async () => ({ status: 204, body: { text: 'x' } }));
    // @ts-expect-error an error status is thrown as an AppError, not returned
    defineRoute({ ...base, responses }, async () => ({ status: 409 }));
    const file = { 200: { description: 'A file', mediaType: 'image/png' } };
    defineRoute({ ...base, responses: file }, async () => ({ status: 200, handled: true }) as const);
    // @ts-expect-error a non-JSON response is written on `res` by the handler
    defineRoute({ ...base, responses: file }, async () => ({ status: 200, body: 'png' }));
    expect(true).toBe(true);
  });
});
