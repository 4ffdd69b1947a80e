import { indexSteps, type Capabilities, type StepInput } from '@botfleet/core';
import type { Page } from 'playwright-core';
import { MAX_PAGE_LOG_LINES } from './page-log';
import { runExecution } from './run-execution';
import { REDACTED } from './run-secrets';
import { runSteps } from './step-interpreter';
import {
  createMemorySession,
  fixedCredentials,
  readZipEntries,
  useBrowserFixture,
  type MemorySession,
} from './testing';

/** The parts of a trace.trace line (JSON per line) these tests read. */
interface TraceEvent {
  type: string;
  callId?: string;
  method?: string;
  params?: { selector?: string };
  error?: { message: string };
  messageType?: string;
  text?: string;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Quotes, a space and form-encoded characters: the HAR holds it JSON-escaped and form-encoded. */
const SECRET = 'hunter2 "q"!&';

/**
 * A run's evidence in real Chromium: its Playwright trace (kept on failure by default), its HAR,
 * a screenshot after every step, and what its pages said in its logs.
 */
describe('run evidence', () => {
  const fixture = useBrowserFixture({
    routes: {
      // A console error, a warning, an uncaught error, a 404 and a request that cannot connect;
      // #ready appears once the last of them has happened.
      '/': `<!doctype html><title>Evidence</title><button id="go">Go</button><script>
        console.error('boom from the page');
        console.warn('careful now');
        console.log('hello');
        setTimeout(() => { throw new Error('uncaught kaboom'); });
        const mark = (id) => { const p = document.createElement('p'); p.id = id; p.textContent = id; document.body.append(p); };
        Promise.all([
          fetch('/missing.json').then((r) => r.status),
          fetch('http://127.0.0.1:1/unreachable').catch(() => 'refused'),
        ]).then(() => setTimeout(() => mark('ready'), 50));
      </script>`,
      '/noisy': `<!doctype html><title>Noisy</title><body><script>
        for (let i = 0; i < ${MAX_PAGE_LOG_LINES + 50}; i++) console.log('line ' + i + ' ' + 'x'.repeat(2000));
        const p = document.createElement('p'); p.id = 'ready'; p.textContent = 'ready'; document.body.append(p);
      </script>`,
      '/login': `<!doctype html><title>Login</title><form method="post" action="/submit">
        <input id="user" name="user" value="alice"><input id="pass" name="password" type="password">
        <button id="submit">Sign in</button></form>`,
      '/submit': '<!doctype html><title>Welcome</title><p id="done">Signed in</p>',
    },
  });

  function run(steps: StepInput[], capabilities: Capabilities, path = '/') {
    const session = createMemorySession({
      credentials: fixedCredentials({ password: SECRET, username: 'alice' }, [fixture.server.origin]),
    });
    const outcome = runExecution({
      browserHost: fixture.host,
      targetUrl: fixture.server.url(path),
      capabilities,
      timeoutMs: 20_000,
      session,
      program: (page: Page, s) => runSteps(page, indexSteps(steps), s),
    });
    return { session, outcome };
  }

  const artifactsOf = (session: MemorySession, kind: string) =>
    [...session.artifacts.values()].filter((artifact) => artifact.kind === kind);
  const pageLogs = (session: MemorySession) => session.logs.filter((log) => log.source === 'page');

  const failing: StepInput[] = [
    { action: 'waitFor', selector: '#ready' },
    { action: 'click', selector: '#go' },
    { action: 'waitFor', selector: '#never', timeout: 300 },
  ];
  const completing: StepInput[] = [{ action: 'waitFor', selector: '#ready' }];

  it('keeps the trace of a failed run by default, with the failing step and the console error in it', async () => {
    const { session, outcome } = run(failing, {});
    expect((await outcome).status).toBe('failed');
    const traces = artifactsOf(session, 'trace');
    expect(traces).toHaveLength(1);
    expect(traces[0]!.contentType).toBe('application/zip');
    const entries = readZipEntries(traces[0]!.data);
    expect([...entries.keys()]).toEqual(expect.arrayContaining(['trace.trace', 'trace.network']));
    const events = entries
      .get('trace.trace')!
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as TraceEvent);
    // The failing step's call, with the error it ended in.
    const waited = events.find(
      (event) =>
        event.type === 'before' && event.method === 'waitForSelector' && event.params?.selector?.startsWith('#never'),
    );
    expect(waited).toBeDefined();
    expect(events.find((event) => event.type === 'after' && event.callId === waited!.callId)?.error?.message).toMatch(
      /Timeout 300ms exceeded/,
    );
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'console', messageType: 'error', text: 'boom from the page' }),
    );
    // DOM snapshots (what the viewer renders) and the network are in it.
    expect(events.some((event) => event.type === 'frame-snapshot')).toBe(true);
    expect(entries.get('trace.network')!.toString('utf8')).toContain('/missing.json');
  });

  it('writes what the page said into the logs as page lines', async () => {
    const { session, outcome } = run(completing, { trace: 'off' });
    expect((await outcome).status).toBe('completed');
    const lines = pageLogs(session).map(({ level, message }) => ({ level, message }));
    expect(lines).toEqual(
      expect.arrayContaining([
        { level: 'error', message: 'console.error: boom from the page' },
        { level: 'warn', message: 'console.warn: careful now' },
        { level: 'info', message: 'console.log: hello' },
        { level: 'error', message: 'Uncaught Error: uncaught kaboom' },
        { level: 'warn', message: `HTTP 404 from GET ${fixture.server.url('/missing.json')}` },
        {
          level: 'error',
          message: expect.stringMatching(/^Request failed: GET http:\/\/127\.0\.0\.1:1\/unreachable: net::ERR_/),
        },
      ]),
    );
  });

  it('keeps at most the bounded number of page lines, each cut short', async () => {
    const { session, outcome } = run(completing, { trace: 'off' }, '/noisy');
    expect((await outcome).status).toBe('completed');
    const lines = pageLogs(session);
    expect(lines).toHaveLength(MAX_PAGE_LOG_LINES);
    expect(Math.max(...lines.map((line) => line.message.length))).toBeLessThanOrEqual(1_001);
    expect(session.logs.filter((log) => log.message.startsWith('Further page log lines were dropped'))).toHaveLength(1);
  });

  it('discards the trace of a completed run by default, and keeps it with always', async () => {
    const byDefault = run(completing, {});
    expect((await byDefault.outcome).status).toBe('completed');
    expect(artifactsOf(byDefault.session, 'trace')).toHaveLength(0);

    const always = run(completing, { trace: 'always' });
    expect((await always.outcome).status).toBe('completed');
    const traces = artifactsOf(always.session, 'trace');
    expect(traces).toHaveLength(1);
    expect(readZipEntries(traces[0]!.data).has('trace.trace')).toBe(true);
  });

  it('records no trace with off, even for a failed run', async () => {
    const { session, outcome } = run(failing, { trace: 'off' });
    expect((await outcome).status).toBe('failed');
    expect(session.artifacts.size).toBe(0);
  });

  it("keeps a HAR of the page's requests", async () => {
    const { session, outcome } = run(completing, { trace: 'off', har: true });
    expect((await outcome).status).toBe('completed');
    const hars = artifactsOf(session, 'har');
    expect(hars).toHaveLength(1);
    expect(hars[0]!.contentType).toBe('application/json');
    const har = JSON.parse(hars[0]!.data.toString('utf8')) as {
      log: { entries: { request: { url: string }; response: { status: number } }[] };
    };
    const seen = har.log.entries.map((entry) => [entry.request.url, entry.response.status]);
    expect(seen).toEqual(
      expect.arrayContaining([
        [fixture.server.url('/'), 200],
        [fixture.server.url('/missing.json'), 404],
      ]),
    );
  });

  it('redacts a filled credential from the HAR and keeps no trace of a run that holds one', async () => {
    const { session, outcome } = run(
      [
        { action: 'fill', selector: '#pass', value: { credential: 'crd_x', field: 'password' } },
        { action: 'click', selector: '#submit' },
        { action: 'waitFor', selector: '#done' },
        { action: 'waitFor', selector: '#never', timeout: 300 },
      ],
      { har: true },
      '/login',
    );
    expect((await outcome).status).toBe('failed');
    // The form went out with the password: the HAR saw it.
    const posted = fixture.server.requests.find((request) => request.path === '/submit');
    expect(posted?.body).toContain('password=hunter2');

    const har = artifactsOf(session, 'har')[0]!.data.toString('utf8');
    expect(har).toContain('/submit');
    expect(har).toContain(REDACTED);
    expect(har).not.toContain('hunter2');
    expect(artifactsOf(session, 'trace')).toHaveLength(0);
    expect(session.logs.map((log) => log.message)).toContainEqual(
      expect.stringMatching(/^The trace was not kept: the run holds secret values/),
    );
  });

  it('keeps a screenshot after every step, failed ones included', async () => {
    const { session, outcome } = run(failing, { trace: 'off', stepScreenshots: true });
    expect((await outcome).status).toBe('failed');
    const shots = artifactsOf(session, 'stepScreenshot');
    expect(shots.map((shot) => shot.stepIndex)).toEqual([0, 1, 2]);
    for (const shot of shots) {
      expect(shot.contentType).toBe('image/png');
      expect(shot.data.subarray(0, 8)).toEqual(PNG_SIGNATURE);
    }
  });
});
