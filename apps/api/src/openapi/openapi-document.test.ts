import { ARTIFACT_CONTENT_TYPES } from '@botfleet/core';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { apiDocument, apiRoutes } from '../app';
import { createApiHarness, type ApiHarness } from '../testing';

/*
 * The OpenAPI document as API consumers' tools read it: operations named for what they do, shared
 * components, every response with its headers, and the committed openapi.json equal to what the
 * API serves.
 */

const ROOT = join(__dirname, '..', '..', '..', '..');
type Json = Record<string, unknown>;
interface Operation {
  operationId: string;
  tags: string[];
  description: string;
  responses: Record<string, Json>;
}

let h: ApiHarness;
let served: {
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Json>; responses: Record<string, Json> };
};
beforeAll(async () => {
  h = await createApiHarness();
  served = (await request(h.app).get('/api/v1/openapi.json').expect(200)).body;
});
afterAll(() => h.close());

const operations = () => Object.values(served.paths).flatMap((methods) => Object.values(methods));
const operation = (path: string, method: string) => served.paths[path]![method]!;
/** A response as a client sees it: a $ref to a shared response is followed. */
function response(op: Operation, status: string): Json {
  const found = op.responses[status];
  if (!found) throw new Error(`${op.operationId} does not document ${status}`);
  const ref = found.$ref;
  return typeof ref === 'string' ? served.components.responses[ref.split('/').pop()!]! : found;
}

it('is the committed openapi.json (regenerate it with `npm run openapi`)', () => {
  const committed: unknown = JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8'));
  expect(committed).toEqual(served);
});

it('carries the package version', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  expect(served.info.version).toBe(pkg.version);
});

it('names every route with a unique, verb-first operationId', () => {
  const ids = apiRoutes(h.deps).map((route) => route.definition.operationId);
  expect(ids.filter((id) => typeof id !== 'string' || !/^[a-z]+[A-Z][A-Za-z]*$/.test(id))).toEqual([]);
  expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  expect(apiDocument(apiRoutes(h.deps))).toEqual(served);
  expect(operation('/bots', 'get').operationId).toBe('listBots');
  expect(operation('/bots', 'post').operationId).toBe('createBot');
  expect(operation('/bots/{botId}/executions', 'post').operationId).toBe('triggerExecution');
  expect(operation('/executions/{executionId}', 'get').operationId).toBe('getExecution');
});

it('refers to shared component schemas instead of inlining them', () => {
  const json = (op: Operation, status: string) => (response(op, status).content as Json)['application/json'] as Json;
  expect(json(operation('/bots/{botId}', 'get'), '200').schema).toEqual({ $ref: '#/components/schemas/Bot' });
  expect(json(operation('/executions/{executionId}', 'get'), '200').schema).toEqual({
    $ref: '#/components/schemas/Execution',
  });
  expect(json(operation('/bots/{botId}/manifest', 'get'), '200').schema).toEqual({
    $ref: '#/components/schemas/Manifest',
  });
  expect(json(operation('/executions/{executionId}/steps/{index}', 'get'), '200').schema).toEqual({
    $ref: '#/components/schemas/StepOutput',
  });
  expect(Object.keys(served.components.schemas)).toEqual(
    expect.arrayContaining(['Bot', 'BotSummary', 'Execution', 'StepOutput', 'Manifest', 'Step', 'Error', 'Delivery']),
  );
});

it('documents the errors each route can answer, all with the error envelope and an example', () => {
  const trigger = operation('/bots/{botId}/executions', 'post');
  expect(Object.keys(trigger.responses)).toEqual(
    expect.arrayContaining(['400', '401', '403', '404', '408', '409', '413', '415', '429', '500', '503']),
  );
  // A read key cannot lack `read`, a route with no path names nothing that could be missing.
  expect(Object.keys(operation('/bots', 'get').responses)).not.toContain('403');
  expect(Object.keys(operation('/bots', 'get').responses)).not.toContain('404');
  for (const op of operations()) {
    for (const status of Object.keys(op.responses).filter((s) => Number(s) >= 400)) {
      const content = response(op, status).content as Record<string, { schema: Json; example: Json }>;
      expect(content['application/json']!.schema).toEqual({ $ref: '#/components/schemas/Error' });
      expect(content['application/json']!.example).toHaveProperty('error.code');
    }
  }
});

it('documents the response headers: X-Request-Id everywhere, Location, WWW-Authenticate, Retry-After', () => {
  for (const op of operations()) {
    for (const status of Object.keys(op.responses)) {
      expect(response(op, status).headers).toHaveProperty(['X-Request-Id']);
    }
  }
  const trigger = operation('/bots/{botId}/executions', 'post');
  expect(response(trigger, '202').headers).toHaveProperty(['Location']);
  expect(response(operation('/bots', 'post'), '201').headers).toHaveProperty(['Location']);
  expect(response(trigger, '401').headers).toHaveProperty(['WWW-Authenticate']);
  expect(response(trigger, '429').headers).toHaveProperty(['Retry-After']);
  expect(response(trigger, '503').headers).toHaveProperty(['Retry-After']);
});

it('documents the artifact download as a binary file of every type it is served with, that needs no key', () => {
  const artifact = operation('/artifacts/{artifactId}', 'get');
  // The answer carries its kind's type (a screenshot's image/png, a trace's application/zip...).
  const binary = { schema: { type: 'string', format: 'binary' } };
  expect(response(artifact, '200').content).toEqual(
    Object.fromEntries(Object.values(ARTIFACT_CONTENT_TYPES).map((type) => [type, binary])),
  );
  expect(Object.keys(artifact.responses)).toEqual(expect.arrayContaining(['400', '403', '404']));
  expect(artifact.responses['401']).toBeUndefined();
});
