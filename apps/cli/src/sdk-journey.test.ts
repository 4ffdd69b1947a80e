import {
  BotfleetApiError,
  createBot,
  createBotfleetClient,
  getBot,
  getExtract,
  getFailure,
  listBots,
  listExecutionDeliveries,
  listLogs,
  listStepOutputs,
  replaceSteps,
  triggerExecution,
  updateManifest,
  waitForExecution,
  type Client,
} from '@botfleet/sdk';
import { waitUntil } from '@botfleet/testkit';
import { SHOP_DATA, SHOP_STEPS, startJourneyFixture, type JourneyFixture } from './testing';

/*
 * A client's whole journey through @botfleet/sdk's typed client against the real API, worker and
 * delivery roles: create a bot, its manifest and steps, trigger, wait, read the data, a failure,
 * the logs and the webhook deliveries.
 */

let f: JourneyFixture;
let client: Client;
beforeAll(async () => {
  f = await startJourneyFixture();
  client = createBotfleetClient({ baseUrl: f.baseUrl, apiKey: f.org.keys.write });
});
afterAll(() => f?.close());

it('creates, configures and runs a bot, then reads its data, logs and deliveries', async () => {
  const { data: bot, response } = await createBot({
    client,
    body: { name: 'sdk shop', targetUrl: f.site.url('/'), tags: ['sdk'] },
    throwOnError: true,
  });
  expect(response.status).toBe(201);
  expect(response.headers.get('location')).toBe(`/api/v1/bots/${bot.id}`);
  expect(bot).toMatchObject({ name: 'sdk shop', status: 'active', kind: 'extraction', tags: ['sdk'] });

  const { data: manifest } = await updateManifest({
    client,
    path: { botId: bot.id },
    body: {
      webhook: { url: `${f.receiver.url}/hook`, auth: 'hmac', secret: 'whsec_c2RrLWpvdXJuZXktc2VjcmV0' },
      parameters: [{ name: 'note', type: 'string', required: false }],
    },
    throwOnError: true,
  });
  expect(manifest.webhook).toMatchObject({ url: `${f.receiver.url}/hook`, auth: 'hmac', secret: '********' });

  const { data: steps } = await replaceSteps({
    client,
    path: { botId: bot.id },
    body: { steps: SHOP_STEPS },
    throwOnError: true,
  });
  expect(steps.data.map((step) => step.index)).toEqual([0, 1]);

  const listed = await listBots({ client, query: { limit: 100 }, throwOnError: true });
  expect(listed.data.data.map((summary) => summary.id)).toContain(bot.id);

  const trigger = await triggerExecution({
    client,
    path: { botId: bot.id },
    body: { params: { note: 'from the sdk' } },
    throwOnError: true,
  });
  expect(trigger.response.status).toBe(202);
  const { executionId } = trigger.data;
  expect(trigger.response.headers.get('location')).toBe(`/api/v1/executions/${executionId}`);

  const execution = await waitForExecution(client, executionId, { timeoutMs: 30_000 });
  expect(execution).toMatchObject({
    id: executionId,
    botId: bot.id,
    status: 'completed',
    params: { note: 'from the sdk' },
  });

  const { data: extract } = await getExtract({ client, path: { executionId }, throwOnError: true });
  expect(extract.data).toEqual(SHOP_DATA);
  const { data: outputs } = await listStepOutputs({ client, path: { executionId }, throwOnError: true });
  expect(outputs.data.map((output) => [output.index, output.status])).toEqual([
    [0, 'completed'],
    [1, 'completed'],
  ]);
  const { data: logs } = await listLogs({ client, path: { executionId }, throwOnError: true });
  expect(logs.data.length).toBeGreaterThan(0);

  const delivery = await waitUntil(
    async () => {
      const { data } = await listExecutionDeliveries({ client, path: { executionId }, throwOnError: true });
      return data.data.find((d) => d.status === 'succeeded');
    },
    { timeoutMs: 15_000, message: 'the webhook delivery' },
  );
  expect(delivery.attempts[0]).toMatchObject({ number: 1, statusCode: 200 });
  const received = f.receiver.requests.find((r) => r.url === '/hook');
  expect(JSON.parse(received!.body)).toEqual(SHOP_DATA);
  expect(received!.headers['webhook-signature']).toMatch(/^v1,/);
});

it('reports a failed run with its step, error and screenshot', async () => {
  const { data: bot } = await createBot({
    client,
    body: { name: 'sdk broken', targetUrl: f.site.url('/') },
    throwOnError: true,
  });
  await replaceSteps({
    client,
    path: { botId: bot.id },
    body: { steps: [{ action: 'click', selector: '#missing', timeout: 500 }] },
    throwOnError: true,
  });
  const { data: receipt } = await triggerExecution({ client, path: { botId: bot.id }, body: {}, throwOnError: true });
  const execution = await waitForExecution(client, receipt.executionId, { timeoutMs: 30_000 });
  expect(execution.status).toBe('failed');
  const { data: failure } = await getFailure({ client, path: { executionId: execution.id }, throwOnError: true });
  expect(failure.stepIndex).toBe(0);
  expect(failure.error).toMatch(/#missing/);
  expect(failure.screenshotUrl).toMatch(/^http:\/\/botfleet\.test\/api\/v1\/artifacts\//);
});

it('throws the API’s errors as BotfleetApiError, typed by code', async () => {
  const missing = await getBot({ client, path: { botId: 'bot_doesnotexist0000' }, throwOnError: true }).catch(
    (err: unknown) => err,
  );
  expect(missing).toBeInstanceOf(BotfleetApiError);
  expect(missing).toMatchObject({ status: 404, code: 'not_found', requestId: expect.any(String) });

  const { data: bot } = await createBot({
    client,
    body: { name: 'params', targetUrl: f.site.url('/') },
    throwOnError: true,
  });
  const unknown = await triggerExecution({
    client,
    path: { botId: bot.id },
    body: { params: { nope: 1 } },
    throwOnError: true,
  }).catch((err: unknown) => err);
  expect(unknown).toMatchObject({ status: 400, code: 'unknown_parameter', message: "Unknown parameter 'nope'." });

  // Without throwOnError the error comes back as a value.
  const readOnly = createBotfleetClient({ baseUrl: f.baseUrl, apiKey: f.org.keys.read });
  const refused = await createBot({ client: readOnly, body: { name: 'x', targetUrl: f.site.url('/') } });
  expect(refused.data).toBeUndefined();
  expect(refused.response?.status).toBe(403);
});
