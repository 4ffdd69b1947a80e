import { createTestExecution } from '@botfleet/db/testing';
import { enqueueExecutionRuns } from '@botfleet/queue';
import { startFixtureServer, type FixtureServer } from '@botfleet/testkit';
import request from 'supertest';
import { createE2eHarness, type E2eHarness } from './testing/e2e-harness';

/*
 * A run runs the version its bot had when it was triggered (docs/bot-versions.md): an edit made
 * while the run waits in the queue is not what it runs, and what it reports is what it ran.
 */

let h: E2eHarness;
let site: FixtureServer;

beforeAll(async () => {
  site = await startFixtureServer({ '/page': '<!doctype html><html><body><h1 id="title">Hello</h1></body></html>' });
  h = await createE2eHarness();
});
afterAll(async () => {
  await h.close();
  await site.close();
});

const scriptReturning = (label: string) =>
  `export default async ({ page }) => ({ label: '${label}', title: await page.textContent('#title') });`;

it('a run triggered before a change runs (and reports) the old version; a restore brings it back', async () => {
  const botId = await h.createBot({ targetUrl: site.url('/page'), manifest: { capabilities: { timeout: 30 } } });
  const write = h.org.auth('write');
  const created = await request(h.api.app)
    .post(`/api/v1/bots/${botId}/scripts`)
    .set(write)
    .send({ name: 'labelled', source: scriptReturning('old'), active: true });
  expect(created.status).toBe(201);
  const oldVersion = (await h.get(`/api/v1/bots/${botId}`)).body.version as number;

  // Triggered, as a trigger writes it, but not yet enqueued: the edit lands before any worker can claim it.
  const early = await createTestExecution(h.api.db, { botId, organizationId: h.org.id });
  const edited = await request(h.api.app)
    .patch(`/api/v1/bots/${botId}/scripts/${created.body.id}`)
    .set(write)
    .send({ source: scriptReturning('new') });
  expect(edited.status).toBe(200);
  await enqueueExecutionRuns(h.api.queues, h.org.id, [early.id]);
  const late = await h.trigger(botId);

  const earlyRun = await h.waitForFinal(early.id, 45_000);
  expect(earlyRun).toMatchObject({ status: 'completed', botVersion: oldVersion });
  expect((await h.get(`/api/v1/executions/${early.id}/extract`)).body.data).toEqual({ label: 'old', title: 'Hello' });
  const logs = (await h.get(`/api/v1/executions/${early.id}/logs`)).body.data as { message: string }[];
  expect(logs.map((l) => l.message)).toContainEqual(expect.stringContaining(`of version ${oldVersion}`));

  expect(await h.waitForFinal(late, 45_000)).toMatchObject({ status: 'completed', botVersion: oldVersion + 1 });
  expect((await h.get(`/api/v1/executions/${late}/extract`)).body.data).toEqual({ label: 'new', title: 'Hello' });

  const restored = await request(h.api.app).post(`/api/v1/bots/${botId}/versions/${oldVersion}/restore`).set(write);
  expect(restored.status).toBe(201);
  const again = await h.trigger(botId);
  expect(await h.waitForFinal(again, 45_000)).toMatchObject({ status: 'completed', botVersion: oldVersion + 2 });
  expect((await h.get(`/api/v1/executions/${again}/extract`)).body.data).toEqual({ label: 'old', title: 'Hello' });
});
