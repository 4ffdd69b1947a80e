import { indexSteps, type StepInput, type StorageState } from '@botfleet/core';
import type { Page } from 'playwright-core';
import { REDACTED } from './run-secrets';
import { runExecution, type RunExecutionOptions } from './run-execution';
import { runSteps } from './step-interpreter';
import {
  createMemorySession,
  fixedCredentials,
  MASK_COLOUR,
  pngColoursIn,
  useBrowserFixture,
  type MemorySession,
} from './testing';

/*
 * A run's browser session and credentials in real Chromium: the context starts from a saved
 * storage state (cookies, localStorage, IndexedDB) and hands its end state back; a credential's
 * value goes into the page but into nothing the run stores, and every screenshot masks it.
 */

const SESSION_TOKEN = 'session-token-0123456789abcdef';
const SECRET = 'correct horse battery staple';
const BOX = { x: 40, y: 40, width: 320, height: 48 };

describe('browser sessions and credentials', () => {
  const fixture = useBrowserFixture({
    routes: {
      '/login': (_req, res) => {
        res.writeHead(200, {
          'content-type': 'text/html',
          'set-cookie': `sid=${SESSION_TOKEN}; Path=/; HttpOnly; SameSite=Lax`,
        });
        res.end(`<!doctype html><title>Login</title><script>
          localStorage.setItem('visits', String(Number(localStorage.getItem('visits') || '0') + 1));
          const open = indexedDB.open('kept', 1);
          open.onupgradeneeded = () => open.result.createObjectStore('things');
          open.onsuccess = () => {
            const put = open.result.transaction('things', 'readwrite').objectStore('things').put('remembered', 'k');
            put.onsuccess = () => { const p = document.createElement('p'); p.id = 'stored'; p.textContent = 'stored'; document.body.append(p); };
          };
        </script>`);
      },
      '/whoami': `<!doctype html><title>Who</title><p id="visits"></p><p id="idb"></p><script>
          document.getElementById('visits').textContent = localStorage.getItem('visits') || 'none';
          const open = indexedDB.open('kept', 1);
          open.onupgradeneeded = () => open.result.createObjectStore('things');
          open.onsuccess = () => {
            const get = open.result.transaction('things').objectStore('things').get('k');
            get.onsuccess = () => { const p = document.getElementById('idb'); p.textContent = get.result || 'none'; p.id = 'idb-done'; };
          };
        </script>`,
      '/form': `<!doctype html><title>Form</title><style>body{margin:0;background:#fff}</style>
        <input id="user" aria-label="User" style="position:absolute;left:${BOX.x}px;top:${BOX.y}px;width:${BOX.width}px;height:${BOX.height}px;box-sizing:border-box;border:0;color:#000;background:#fff;font-size:24px">
        <p id="echo" style="position:absolute;top:300px"></p>
        <script>document.getElementById('user').addEventListener('input', (e) => document.getElementById('echo').textContent = e.target.value);</script>`,
    },
  });

  function run(path: string, steps: StepInput[], overrides: Partial<RunExecutionOptions> = {}) {
    const session: MemorySession =
      (overrides.session as MemorySession | undefined) ??
      createMemorySession({
        credentials: fixedCredentials({ password: SECRET, username: 'alice' }, [fixture.server.origin]),
      });
    const outcome = runExecution({
      browserHost: fixture.host,
      targetUrl: fixture.server.url(path),
      capabilities: { resolution: { width: 800, height: 600 } },
      timeoutMs: 20_000,
      session,
      program: (page: Page, s) => runSteps(page, indexSteps(steps), s),
      ...overrides,
    });
    return { session, outcome };
  }

  it('starts from a saved state and hands back the end state, IndexedDB included', async () => {
    let saved: StorageState | null = null;
    const first = run('/login', [{ action: 'waitFor', selector: '#stored' }], {
      browserState: { initial: null, keepEnd: (state) => void (saved = state) },
    });
    const firstOutcome = await first.outcome;
    expect(firstOutcome.status).toBe('completed');
    const state = saved as unknown as StorageState;
    expect(state.cookies).toEqual([expect.objectContaining({ name: 'sid', value: SESSION_TOKEN, httpOnly: true })]);
    const origin = state.origins.find((o) => o.origin === fixture.server.origin);
    expect(origin?.localStorage).toEqual([{ name: 'visits', value: '1' }]);
    expect(origin?.indexedDB?.map((db) => db.name)).toEqual(['kept']);

    const requestsBefore = fixture.server.requests.length;
    const second = run(
      '/whoami',
      [
        { action: 'waitFor', selector: '#idb-done' },
        { action: 'extract', name: 'visits', selector: '#visits' },
        { action: 'extract', name: 'idb', selector: '#idb-done' },
      ],
      { browserState: { initial: state } },
    );
    expect(await second.outcome).toEqual({ status: 'completed', data: { visits: '1', idb: 'remembered' } });
    // The cookie went out with the request: the browser started logged in.
    const whoami = fixture.server.requests.slice(requestsBefore).find((r) => r.path === '/whoami');
    expect(whoami?.headers.cookie).toBe(`sid=${SESSION_TOKEN}`);
  });

  it('fills a credential into the page, never into what the run stores, and masks it in screenshots', async () => {
    const { session, outcome } = run('/form', [
      { action: 'fill', selector: '#user', value: { credential: 'crd_x', field: 'password' } },
      { action: 'screenshot' },
      { action: 'extract', name: 'typed', selector: '#echo' },
      { action: 'waitFor', selector: '#never', timeout: 300 },
    ]);
    const result = await outcome;
    expect(result.status).toBe('failed');
    const stored = JSON.stringify({
      steps: session.steps,
      logs: session.logs,
      result: { ...result, screenshot: null },
    });
    expect(stored).not.toContain(SECRET);
    // The extract step read the value back: the page got it, the stored output says it was redacted.
    expect(session.steps[2]?.data).toBe(REDACTED);

    const shot = [...session.artifacts.values()][0]?.data;
    const failure = result.status === 'failed' ? result.screenshot : null;
    for (const png of [shot, failure]) {
      expect(png).toBeInstanceOf(Buffer);
      expect(await pngColoursIn(fixture.host, png!, BOX)).toEqual([MASK_COLOUR]);
    }
  });
});
