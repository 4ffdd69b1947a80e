import { createPrismaClient, type PrismaClient } from '@botfleet/db';
import { testDatabaseUrl } from '@botfleet/db/testing';
import { createServer, connect, type Server, type Socket } from 'node:net';
import request from 'supertest';
import { createApp } from '../app';
import { createApiHarness, type ApiHarness, type TestOrg } from '../testing/api-harness';

/*
 * PostgreSQL cut off while the API runs (docs/security.md): every request that needs it answers
 * 503 `unavailable` with Retry-After, never 500, and within the connect timeout, never hanging.
 */

/**
 * A loopback TCP forwarder to PostgreSQL that can be cut: open connections are dropped and new
 * ones are accepted and never answered, so the driver times out instead of being refused.
 */
async function startCuttableForwarder(target: URL): Promise<{ url: string; cut(): void; close(): Promise<void> }> {
  let forwarding = true;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    if (!forwarding) return;
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const url = new URL(target.toString());
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as { port: number }).port);
  return {
    url: url.toString(),
    cut() {
      forwarding = false;
      for (const socket of sockets) socket.destroy();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

let h: ApiHarness;
let org: TestOrg;
let forwarder: Awaited<ReturnType<typeof startCuttableForwarder>>;
let cutOff: PrismaClient;

beforeAll(async () => {
  h = await createApiHarness();
  org = await h.newOrg();
  forwarder = await startCuttableForwarder(new URL(testDatabaseUrl()));
  cutOff = createPrismaClient(forwarder.url, { poolSize: 2, connectTimeoutMs: 1_000 });
});
afterAll(async () => {
  await cutOff.$disconnect();
  await forwarder.close();
  await h.close();
});

it('answers 503 with Retry-After, never 500, while PostgreSQL is cut off', async () => {
  const app = createApp({ ...h.deps, db: cutOff });
  const botId = await h.newBot(org);
  // Through the forwarder first: the key is cached and the pool holds open connections.
  expect((await request(app).get('/api/v1/bots').set(org.auth('read'))).status).toBe(200);
  forwarder.cut();
  const requests = [
    () => request(app).get('/api/v1/bots').set(org.auth('read')),
    () => request(app).get(`/api/v1/bots/${botId}`).set(org.auth('read')),
    () => request(app).get('/api/v1/executions').set(org.auth('read')),
    () => request(app).post('/api/v1/bots').set(org.auth('write')).send({ name: 'x', targetUrl: 'https://a.example' }),
    () => request(app).post(`/api/v1/bots/${botId}/executions`).set(org.auth('write')).send({}),
    () => request(app).get(`/api/v1/bots/${botId}/schedule`).set(org.auth('read')),
  ];
  // Twice over: the first round meets the dropped connections, the second new ones that time out.
  for (const round of [1, 2]) {
    const answers = await Promise.all(requests.map((send) => send()));
    for (const answer of answers) {
      expect({ round, status: answer.status, code: answer.body?.error?.code }).toEqual({
        round,
        status: 503,
        code: 'unavailable',
      });
      expect(answer.headers['retry-after']).toBe('5');
    }
  }
}, 60_000);
