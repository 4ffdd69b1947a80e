import { buildDeliveryBody } from '@botfleet/core';
import { startReceiver, waitUntil, type ReceivedRequest, type TestReceiver } from '@botfleet/testkit';
import jwt from 'jsonwebtoken';
import { Webhook } from 'standardwebhooks';
import { createDeliveryFixture, type DeliveryFixture } from './testing/delivery-fixture';

let f: DeliveryFixture;
let receiver: TestReceiver;

const DATA = {
  items: [
    { name: 'Widget', price: 9.5 },
    { name: 'Gadget', price: 3 },
  ],
  total: 2,
};

beforeAll(async () => {
  f = await createDeliveryFixture();
  receiver = await startReceiver();
  await f.startRole();
});
afterAll(async () => {
  await f.close();
  await receiver.close();
});

const arrivedFor =
  (target: TestReceiver, deliveryId: string, path = '/hook') =>
  () =>
    target.requests.find((r) => r.url === path && r.headers['webhook-id'] === deliveryId);

function verifyHeaders(request: ReceivedRequest): Record<string, string> {
  return {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  };
}

describe('hmac', () => {
  it('signs with a plain secret (its UTF-8 bytes) and sends the Standard Webhooks and botfleet headers', async () => {
    const secret = 'plain-secret-for-botfleet';
    const botId = await f.newBot({ url: `${receiver.url}/hook`, auth: 'hmac', secret });
    const { executionId, deliveryId } = await f.completeRun(botId, DATA);

    const received = await waitUntil(arrivedFor(receiver, deliveryId), {
      timeoutMs: 10_000,
      message: 'the hmac delivery',
    });
    expect(received.method).toBe('POST');
    expect(received.headers).toMatchObject({
      'content-type': 'application/json',
      'webhook-id': deliveryId,
      'x-botfleet-event': 'execution.completed',
      'x-botfleet-bot-id': botId,
      'x-botfleet-execution-id': executionId,
    });
    expect(Math.abs(Number(received.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(String(received.headers['webhook-signature'])).toMatch(/^v1,/);
    const verifier = new Webhook(Buffer.from(secret, 'utf8'), { format: 'raw' });
    expect(verifier.verify(received.body, verifyHeaders(received))).toEqual(DATA);
    expect(() => verifier.verify(received.body.replace('9.5', '0.5'), verifyHeaders(received))).toThrow();

    const status = await waitUntil(
      async () => {
        const res = await f.deliveries(executionId);
        return res.body.data[0]?.status === 'succeeded' ? res.body.data[0] : undefined;
      },
      { timeoutMs: 10_000, message: 'the hmac delivery to succeed' },
    );
    expect(status).toMatchObject({
      attemptCount: 1,
      lastError: null,
      attempts: [{ number: 1, statusCode: 200, error: null }],
    });
  });

  it('base64-decodes a whsec_ secret', async () => {
    const secret = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
    const botId = await f.newBot({ url: `${receiver.url}/hook`, auth: 'hmac', secret });
    const { deliveryId } = await f.completeRun(botId, DATA);
    const received = await waitUntil(arrivedFor(receiver, deliveryId), {
      timeoutMs: 10_000,
      message: 'the whsec delivery',
    });
    expect(new Webhook(secret).verify(received.body, verifyHeaders(received))).toEqual(DATA);
  });
});

it('narrows the body with dataPath, exactly as buildDeliveryBody does', async () => {
  const botId = await f.newBot({ url: `${receiver.url}/hook`, auth: 'none', dataPath: 'items.1.name' });
  const { deliveryId } = await f.completeRun(botId, DATA);
  const received = await waitUntil(arrivedFor(receiver, deliveryId), {
    timeoutMs: 10_000,
    message: 'the narrowed delivery',
  });
  expect(received.body).toBe('"Gadget"');
  expect(received.body).toBe(buildDeliveryBody(DATA, 'items.1.name'));
  expect(received.headers['webhook-signature']).toBeUndefined();
});

describe('jwt', () => {
  const SIGNING_KEY = 'login-server-signing-key';
  let server: TestReceiver;
  let logins = 0;
  const revoked = new Set<string>();

  beforeAll(async () => {
    server = await startReceiver((request, res) => {
      if (request.url === '/login') {
        const { username, password } = JSON.parse(request.body) as { username: string; password: string };
        if (username !== 'bot' || password !== 'hunter2-password') return void res.writeHead(403).end();
        logins += 1;
        // A fresh jti per login, so a re-login yields a different token.
        const token = jwt.sign({ sub: username, jti: String(logins) }, SIGNING_KEY, { expiresIn: '1h' });
        return void res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ access_token: token }));
      }
      const token = String(request.headers.authorization ?? '').replace(/^Bearer /, '');
      try {
        jwt.verify(token, SIGNING_KEY);
      } catch {
        return void res.writeHead(401).end();
      }
      res.writeHead(revoked.has(token) ? 401 : 200).end();
    });
  });
  afterAll(() => server.close());

  const webhook = () => ({
    url: `${server.url}/hook`,
    auth: 'jwt',
    loginUrl: `${server.url}/login`,
    username: 'bot',
    password: 'hunter2-password',
  });
  const hookRequests = (deliveryId: string) =>
    server.requests.filter((r) => r.url === '/hook' && r.headers['webhook-id'] === deliveryId);

  it('logs in once and reuses the token across deliveries, then logs in again after a 401', async () => {
    const botId = await f.newBot(webhook());
    const first = await f.completeRun(botId, DATA);
    await waitUntil(arrivedFor(server, first.deliveryId), {
      timeoutMs: 10_000,
      message: 'the first jwt delivery',
    });
    const second = await f.completeRun(botId, DATA);
    await waitUntil(arrivedFor(server, second.deliveryId), {
      timeoutMs: 10_000,
      message: 'the second jwt delivery',
    });
    expect(logins).toBe(1);
    const [a, b] = [hookRequests(first.deliveryId)[0]!, hookRequests(second.deliveryId)[0]!];
    expect(a.headers.authorization).toMatch(/^Bearer ey/);
    expect(b.headers.authorization).toBe(a.headers.authorization);

    // The receiver now rejects that token: the same attempt logs in again and succeeds.
    revoked.add(String(a.headers.authorization).replace(/^Bearer /, ''));
    const third = await f.completeRun(botId, DATA);
    const delivered = await waitUntil(
      async () => {
        const res = await f.deliveries(third.executionId);
        return res.body.data[0]?.status === 'succeeded' ? res.body.data[0] : undefined;
      },
      { timeoutMs: 10_000, message: 'the re-login delivery' },
    );
    expect(logins).toBe(2);
    const tries = hookRequests(third.deliveryId);
    expect(tries.map((r) => r.headers.authorization === a.headers.authorization)).toEqual([true, false]);
    expect(delivered).toMatchObject({ attemptCount: 1, attempts: [{ number: 1, statusCode: 200 }] });
  });
});
