import { countExecutionsByStatus } from '@botfleet/db/testing';
import { startFixtureServer, waitUntil, type FixtureServer } from '@botfleet/testkit';
import request from 'supertest';
import { createE2eHarness, type E2eHarness } from './testing/e2e-harness';

/* MAX_RUNNING_EXECUTIONS_PER_ORG with real Chromium: the cap holds, other organizations use the free slot. */

let h: E2eHarness;
let site: FixtureServer;

beforeAll(async () => {
  site = await startFixtureServer({
    '/slow': (_req, res) =>
      void setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end('<h1 id="t">ok</h1>'), 400),
  });
  h = await createE2eHarness({ concurrency: 2, maxRunningExecutionsPerOrg: 1 });
});
afterAll(async () => {
  await h.close();
  await site.close();
});

it('never runs more than the cap of one organization at once, and finishes every run', async () => {
  const steps = [{ action: 'extract', name: 't', selector: '#t' }];
  const botId = await h.createBot({ targetUrl: site.url('/slow'), steps });
  const batch = await request(h.api.app)
    .post(`/api/v1/bots/${botId}/executions/batch`)
    .set(h.org.auth('write'))
    .send({ runs: Array.from({ length: 4 }, () => ({})) });
  expect(batch.status).toBe(202);

  // Another organization's run takes the slot the capped one may not use.
  const other = await h.api.newOrg();
  const otherBot = await h.api.newBot(other, { name: 'o', targetUrl: site.url('/slow') }, { steps });
  await request(h.api.app).post(`/api/v1/bots/${otherBot}/executions`).set(other.auth('write')).send({});

  let most = 0;
  let otherRan = false;
  await waitUntil(
    async () => {
      const counts = await countExecutionsByStatus(h.api.db, h.org.id);
      most = Math.max(most, counts.running ?? 0);
      otherRan ||= ((await countExecutionsByStatus(h.api.db, other.id)).completed ?? 0) === 1;
      return (counts.completed ?? 0) === 4;
    },
    { timeoutMs: 30_000, intervalMs: 20, message: 'all four runs to complete' },
  );
  expect(most).toBe(1);
  expect(otherRan).toBe(true);
});
