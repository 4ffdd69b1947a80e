import { countExecutionsByStatus } from '@botfleet/db/testing';
import { startFixtureServer, waitUntil, type FixtureServer } from '@botfleet/testkit';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import request from 'supertest';
import { createE2eHarness, type E2eHarness } from './testing/e2e-harness';

/*
 * A running cap the operator set for one organization (`orgs limits --max-running 1`), with no
 * cap server-wide, real Chromium and two worker slots: organization A's long runs never hold both
 * slots, so organization B's run starts and completes while A's are still going.
 */

const REPO_ROOT = join(__dirname, '..', '..', '..');
let h: E2eHarness;
let site: FixtureServer;
/** A's pages wait until this is true: its runs go on for as long as the test needs. */
let released = false;

const HOLD_PAGE = `<!doctype html><body><script>
  (async function poll() {
    const answer = await (await fetch('/released')).text();
    if (answer !== 'yes') return setTimeout(poll, 100);
    const done = document.createElement('p');
    done.id = 'go';
    done.textContent = 'go';
    document.body.append(done);
  })();
</script></body>`;

beforeAll(async () => {
  site = await startFixtureServer({
    '/hold': HOLD_PAGE,
    '/released': (_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end(released ? 'yes' : 'no'),
    '/page': '<!doctype html><body><h1 id="t">Hi</h1></body>',
  });
  // No MAX_RUNNING_EXECUTIONS_PER_ORG: only the organization's own cap can hold A back.
  h = await createE2eHarness({ concurrency: 2 });
});
afterAll(async () => {
  released = true;
  await h.close();
  await site.close();
});

it('with --max-running 1 for A, B’s run starts and completes while A’s two long runs go on', async () => {
  const orgA = h.org;
  const { slug } = await h.api.db.organization.findUniqueOrThrow({ where: { id: orgA.id }, select: { slug: true } });
  // The operator's command, as documented (npm run -s cli -- orgs limits ...).
  const cli = spawnSync('npm', ['run', '-s', 'cli', '--', 'orgs', 'limits', '--org', slug, '--max-running', '1'], {
    cwd: REPO_ROOT,
    env: { ...process.env, DATABASE_URL: process.env.DATABASE_URL, LOG_LEVEL: 'silent' },
    encoding: 'utf8',
  });
  expect(cli.status).toBe(0);
  expect(JSON.parse(cli.stdout.trim()).limits.maxRunningExecutions).toEqual({ value: 1, source: 'organization' });

  const botA = await h.createBot({
    targetUrl: site.url('/hold'),
    manifest: { capabilities: { timeout: 600 } },
    steps: [{ action: 'waitFor', selector: '#go', timeout: 600_000 }],
  });
  const batch = await request(h.api.app)
    .post(`/api/v1/bots/${botA}/executions/batch`)
    .set(orgA.auth('write'))
    .send({ runs: [{}, {}] });
  expect(batch.status).toBe(202);

  let mostRunningA = 0;
  const watchA = async () => {
    const counts = await countExecutionsByStatus(h.api.db, orgA.id);
    mostRunningA = Math.max(mostRunningA, counts.running ?? 0);
    return counts;
  };
  await waitUntil(async () => ((await watchA()).running ?? 0) === 1, {
    timeoutMs: 60_000,
    intervalMs: 50,
    message: 'one of A’s runs to start',
  });

  const orgB = await h.api.newOrg();
  const botB = await h.api.newBot(
    orgB,
    { name: 'b', targetUrl: site.url('/page') },
    { steps: [{ action: 'extract', name: 't', selector: '#t' }] },
  );
  const triggered = await request(h.api.app).post(`/api/v1/bots/${botB}/executions`).set(orgB.auth('write')).send({});
  expect(triggered.status).toBe(202);
  const runB = await waitUntil(
    async () => {
      await watchA();
      const view = (
        await request(h.api.app).get(`/api/v1/executions/${triggered.body.executionId}`).set(orgB.auth('read'))
      ).body as { status: string };
      return ['completed', 'failed', 'cancelled'].includes(view.status) && view;
    },
    { timeoutMs: 90_000, intervalMs: 50, message: 'B’s run to finish' },
  );
  expect(runB.status).toBe('completed');

  // A's runs are still going: one running (holding one slot), one waiting at its cap.
  const whileHeld = await watchA();
  expect(whileHeld).toEqual({ running: 1, pending: 1 });

  released = true;
  await waitUntil(async () => ((await watchA()).completed ?? 0) === 2, {
    timeoutMs: 90_000,
    intervalMs: 50,
    message: 'A’s runs to complete once released',
  });
  expect(mostRunningA).toBe(1);
}, 240_000);
