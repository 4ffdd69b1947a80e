import {
  artifactInRow,
  createCompletedExecutionWithDelivery,
  createTestExecution,
  seedProgress,
} from '@botfleet/db/testing';
import { startReceiver, type TestReceiver } from '@botfleet/testkit';
import { isDeepStrictEqual } from 'node:util';
import request from 'supertest';
import type { z } from 'zod';
import { apiRoutes } from './app';
import type { Route } from './http/route';
import { ErrorEnvelopeSchema } from './contracts/common.contract';
import { createApiHarness, type ApiHarness, type TestOrg } from './testing/api-harness';
import { isEventStreamRoute, parseStreamStart } from './testing/event-stream';
import { SAMPLE_BODIES } from './testing/sample-requests';

/*
 * Every /api/v1 route, discovered from the route table, is called once with its sample body on
 * resources that exist, and what it answers is checked against what it declares: the status is
 * one of its responses, and the body parses against that status's schema with nothing left over
 * (a field a view adds without the contract saying so fails here, as does a missing one). Errors
 * carry the envelope. defineRoute already refuses, at compile time, a handler returning a shape
 * its route does not declare; this proves the declared schemas and the JSON on the wire agree.
 */

/**
 * Routes whose success needs a write only another role makes (a worker fails a run, the delivery
 * role finishes a delivery): here they answer a declared error, their own suites cover success.
 */
const ANSWERS_AN_ERROR_HERE: Record<string, number> = {
  'get /executions/:executionId/failure': 404,
  'post /deliveries/:deliveryId/redeliver': 409,
};

let h: ApiHarness;
let owner: TestOrg;
let receiver: TestReceiver;
let routes: Route[];
/** Path ids by parameter name, and per route where the call must not spend the shared one. */
let ids: Record<string, string>;
let idsOf: Record<string, Record<string, string>>;

beforeAll(async () => {
  h = await createApiHarness();
  owner = await h.newOrg();
  receiver = await startReceiver();
  const botId = await h.newBot(
    owner,
    { name: 'described' },
    {
      manifest: { webhook: { url: `${receiver.url}/hook` }, parameters: [{ name: 'sku', type: 'string' }] },
      steps: [{ action: 'click', selector: '#go' }],
    },
  );
  const doomedBotId = await h.newBot(owner, { name: 'doomed' });
  // Its version 1 is restored (201) without changing the bot the other routes use.
  const versionedBotId = await h.newBot(
    owner,
    { name: 'versioned' },
    { steps: [{ action: 'click', selector: '#go' }] },
  );
  const run = await createCompletedExecutionWithDelivery(h.db, {
    botId,
    organizationId: owner.id,
    extractedData: { price: '9.99' },
  });
  await seedProgress(h.db, run.executionId, {
    steps: [
      { index: 0, action: 'click', status: 'completed', data: null, error: null, startedAt: Date.now(), durationMs: 5 },
    ],
    logs: [{ timestamp: Date.now(), level: 'info', source: 'runner', message: 'clicked' }],
    artifacts: [artifactInRow('screenshot', 'image/png', Buffer.from('png'))],
  });
  // Of a bot of its own: the bulk cancel, called first, takes every pending run of `botId`.
  const otherBotId = await h.newBot(owner, { name: 'other' });
  const pending = await createTestExecution(h.db, { botId: otherBotId, organizationId: owner.id });
  const script = await request(h.app)
    .post(`/api/v1/bots/${botId}/scripts`)
    .set(owner.auth('write'))
    .send({ name: 'own', source: 'export default async () => 1;' });
  const spareKey = await request(h.app)
    .post('/api/v1/api-keys')
    .set(owner.auth('admin'))
    .send({ name: 'spare', permission: 'read' });
  const profile = await request(h.app).post('/api/v1/profiles').set(owner.auth('write')).send({ name: 'described' });
  const doomedProfile = await request(h.app).post('/api/v1/profiles').set(owner.auth('write')).send({ name: 'doomed' });
  const origins = ['https://shop.example'];
  const credential = await request(h.app)
    .post('/api/v1/credentials')
    .set(owner.auth('write'))
    .send({ name: 'used', origins });
  const doomedCredential = await request(h.app)
    .post('/api/v1/credentials')
    .set(owner.auth('write'))
    .send({ name: 'doomed', origins });
  ids = {
    botId,
    credentialId: credential.body.id as string,
    profileId: profile.body.id as string,
    executionId: run.executionId,
    index: '0',
    version: '1',
    scriptId: script.body.id as string,
    keyId: spareKey.body.id as string,
    deliveryId: run.deliveryId!,
  };
  idsOf = {
    'delete /bots/:botId': { botId: doomedBotId },
    'post /bots/:botId/versions/:version/restore': { botId: versionedBotId },
    'delete /credentials/:credentialId': { credentialId: doomedCredential.body.id as string },
    'delete /profiles/:profileId': { profileId: doomedProfile.body.id as string },
    'post /executions/:executionId/cancel': { executionId: pending.id },
  };
  routes = apiRoutes(h.deps);
});
afterAll(async () => {
  await receiver.close();
  await h.close();
});

/** Where a route is called: its path with ids filled in; the artifact route's signed URL comes from the listing. */
async function urlOf(route: Route): Promise<string> {
  const { method, path, permission } = route.definition;
  if (permission === null) {
    const listed = await request(h.app).get(`/api/v1/executions/${ids.executionId}/artifacts`).set(owner.auth('read'));
    const url = new URL((listed.body as { data: { url: string }[] }).data[0]!.url);
    return url.pathname + url.search;
  }
  const own = idsOf[`${method} ${path}`] ?? {};
  return `/api/v1${path.replace(/:([A-Za-z]+)/g, (_m, name: string) => own[name] ?? ids[name] ?? 'x')}`;
}

/** The parse problems of a body against a schema, or, when it parses, the fields the schema does not declare. */
function problemsOf(schema: z.ZodType, body: unknown): unknown {
  const result = schema.safeParse(body);
  if (!result.success) return result.error.issues;
  // Objects drop undeclared keys when parsed: what the wire carries beyond the contract shows up here.
  return isDeepStrictEqual(result.data, body) ? null : { sent: body, declared: result.data };
}

it('answers every route with a declared status and a body its schema parses', async () => {
  const answered: string[] = [];
  for (const route of routes) {
    const { method, path, responses } = route.definition;
    const name = `${method} ${path}`;
    const body = SAMPLE_BODIES[name];
    const url = await urlOf(route);
    const call = request(h.app)[method](url).set(owner.auth('admin'));
    // An event stream may never end: its start is enough to see the status and headers.
    if (isEventStreamRoute(route.definition)) call.buffer(true).parse(parseStreamStart);
    const res = await (body === undefined ? call : call.send(body));
    const declared = responses[res.status];
    if (res.status >= 400) {
      expect({ route: name, problems: problemsOf(ErrorEnvelopeSchema, res.body) }).toEqual({
        route: name,
        problems: null,
      });
      expect({ route: name, status: res.status }).toEqual({ route: name, status: ANSWERS_AN_ERROR_HERE[name] });
      continue;
    }
    expect({ route: name, status: res.status, declared: declared !== undefined }).toEqual({
      route: name,
      status: res.status,
      declared: true,
    });
    if (declared?.schema) {
      expect({ route: name, problems: problemsOf(declared.schema, res.body) }).toEqual({ route: name, problems: null });
    } else if (declared?.mediaType) {
      expect(res.headers['content-type']).toEqual(expect.any(String));
    } else {
      expect({ route: name, body: res.text }).toEqual({ route: name, body: '' });
    }
    answered.push(name);
  }
  // Every route but the few above succeeded, so every success schema was checked against the wire.
  expect(answered.sort()).toEqual(
    routes
      .map((r) => `${r.definition.method} ${r.definition.path}`)
      .filter((name) => !(name in ANSWERS_AN_ERROR_HERE))
      .sort(),
  );
});
