import { countExecutionsByStatus } from '@botfleet/db';
import { startFixtureServer, waitUntil, type FixtureServer } from '@botfleet/testkit';
import request from 'supertest';
import { createE2eHarness, type E2eHarness } from './testing/e2e-harness';

/*
 * A batch end to end with real Chromium: accepted in one request, and every run ends. 100 runs,
 * not 1,000: on the two shared cores tests run on, 1,000 Chromium runs take minutes. That 1,000
 * runs are accepted in one request is run-control.router.test.ts's, that a 1,000-run backlog
 * drains fairly is fairness.e2e.test.ts's.
 */

const RUNS = 100;
let h: E2eHarness;
let site: FixtureServer;

beforeAll(async () => {
  site = await startFixtureServer({ '/page': '<!doctype html><body><p>ok</p></body>' });
  h = await createE2eHarness({ concurrency: 4 });
});
afterAll(async () => {
  await h.close();
  await site.close();
});

it('accepts a batch in one request and runs every one of its runs to completion', async () => {
  // No steps: each run opens the page and ends, so the test measures the path, not the page.
  const botId = await h.createBot({ targetUrl: site.url('/page'), steps: [] });
  const res = await request(h.api.app)
    .post(`/api/v1/bots/${botId}/executions/batch`)
    .set(h.org.auth('write'))
    .send({ runs: Array.from({ length: RUNS }, () => ({})) });
  expect(res.status).toBe(202);
  expect(res.body.data).toHaveLength(RUNS);

  const counts = await waitUntil(
    async () => {
      const byStatus = await countExecutionsByStatus(h.api.db, h.org.id);
      const ended = (byStatus.completed ?? 0) + (byStatus.failed ?? 0) + (byStatus.cancelled ?? 0);
      return ended === RUNS && byStatus;
    },
    { timeoutMs: 150_000, intervalMs: 500, message: 'every run of the batch to end' },
  );
  expect(counts).toEqual({ completed: RUNS });
}, 180_000);
