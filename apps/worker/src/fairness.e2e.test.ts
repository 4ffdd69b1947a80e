import { listOrganizationExecutions, type ExecutionSummary } from '@botfleet/db';
import { startFixtureServer, waitUntil, type FixtureServer } from '@botfleet/testkit';
import request from 'supertest';
import { createE2eHarness, type E2eHarness } from './testing/e2e-harness';

/*
 * Fairness between organizations, with real Redis, PostgreSQL and Chromium: while organization
 * A holds a 1,000-run backlog, a run organization B triggers starts after at most one of A's
 * runs per worker slot. Asserted by the order runs started in, not by how long anything took.
 */

const CONCURRENCY = 2;
let h: E2eHarness;
let site: FixtureServer;

beforeAll(async () => {
  site = await startFixtureServer({ '/page': '<!doctype html><body><h1 id="t">Hi</h1></body>' });
  h = await createE2eHarness({ concurrency: CONCURRENCY });
});
afterAll(async () => {
  await h.close();
  await site.close();
});

const startedRuns = async (organizationId: string): Promise<ExecutionSummary[]> =>
  (
    await listOrganizationExecutions(h.api.db, organizationId, {
      limit: 100,
      filter: { status: ['running', 'completed'] },
    })
  ).items;

it('a second organization’s run starts within one run per worker slot of a 1,000-run backlog', async () => {
  const orgA = h.org;
  const steps = [{ action: 'extract', name: 't', selector: '#t' }];
  const botA = await h.createBot({ targetUrl: site.url('/page'), steps });
  const batch = await request(h.api.app)
    .post(`/api/v1/bots/${botA}/executions/batch`)
    .set(orgA.auth('write'))
    .send({ runs: Array.from({ length: 1_000 }, () => ({})) });
  expect(batch.status).toBe(202);
  // A's backlog is being worked off.
  await waitUntil(async () => (await startedRuns(orgA.id)).length >= 4, { timeoutMs: 30_000, message: 'A running' });

  const orgB = await h.api.newOrg();
  const botB = await h.api.newBot(orgB, { name: 'b', targetUrl: site.url('/page') }, { steps });
  const triggered = await request(h.api.app).post(`/api/v1/bots/${botB}/executions`).set(orgB.auth('write')).send({});
  expect(triggered.status).toBe(202);
  const startedBeforeB = new Set((await startedRuns(orgA.id)).map((run) => run.id));

  // Polled with B's key: B's execution is not A's to see.
  const runB = await waitUntil(
    async () => {
      const view = (
        await request(h.api.app).get(`/api/v1/executions/${triggered.body.executionId}`).set(orgB.auth('read'))
      ).body as { status: string; startedAt: number | null };
      return ['completed', 'failed', 'cancelled'].includes(view.status) && view;
    },
    { timeoutMs: 30_000, intervalMs: 50, message: 'B’s run to finish' },
  );
  expect(runB.status).toBe('completed');
  const startedB = runB.startedAt!;

  // A's runs that started after B was triggered and no later than B itself.
  const overtaking = (await startedRuns(orgA.id)).filter(
    (run) => !startedBeforeB.has(run.id) && run.startedAt!.getTime() <= startedB,
  );
  expect(overtaking.length).toBeLessThanOrEqual(CONCURRENCY);
  // Most of A's backlog is still waiting: B did not wait for it.
  const pendingA = await listOrganizationExecutions(h.api.db, orgA.id, { limit: 100, filter: { status: ['pending'] } });
  expect(pendingA.items.length).toBe(100);

  const cancelled = await request(h.api.app)
    .post(`/api/v1/bots/${botA}/executions/cancel`)
    .set(orgA.auth('write'))
    .send({ status: ['pending', 'running'] });
  expect(cancelled.body.cancelled).toBeGreaterThan(800);
});
