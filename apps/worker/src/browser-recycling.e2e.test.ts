import { countExecutionsByStatus } from '@botfleet/db/testing';
import { createOps } from '@botfleet/ops';
import { startFixtureServer, waitUntil, type FixtureServer } from '@botfleet/testkit';
import request from 'supertest';
import { createE2eHarness, type E2eHarness } from './testing/e2e-harness';

/* BROWSER_RECYCLE_AFTER_RUNS with real Chromium: the worker replaces its browser between runs, failing none. */

let h: E2eHarness;
let site: FixtureServer;
const ops = createOps();

beforeAll(async () => {
  site = await startFixtureServer({ '/page': '<!doctype html><body><h1 id="t">ok</h1></body>' });
  h = await createE2eHarness({ concurrency: 2, browserRecycleAfterRuns: 2, ops });
});
afterAll(async () => {
  await h.close();
  await site.close();
});

it('recycles Chromium every two runs and every run completes', async () => {
  const botId = await h.createBot({
    targetUrl: site.url('/page'),
    steps: [{ action: 'extract', name: 't', selector: '#t' }],
  });
  const batch = await request(h.api.app)
    .post(`/api/v1/bots/${botId}/executions/batch`)
    .set(h.org.auth('write'))
    .send({ runs: Array.from({ length: 8 }, () => ({})) });
  expect(batch.status).toBe(202);
  const counts = await waitUntil(
    async () => {
      const byStatus = await countExecutionsByStatus(h.api.db, h.org.id);
      return (byStatus.completed ?? 0) + (byStatus.failed ?? 0) === 8 && byStatus;
    },
    { timeoutMs: 60_000, intervalMs: 100, message: 'all eight runs to end' },
  );
  expect(counts).toEqual({ completed: 8 });
  const restarts = (await ops.metrics.browserRestarts.get()).values;
  const recycled = restarts.find((v) => v.labels.reason === 'runs')?.value ?? 0;
  expect(recycled).toBeGreaterThanOrEqual(3);
  expect(restarts.find((v) => v.labels.reason === 'disconnected')?.value ?? 0).toBe(0);
});
