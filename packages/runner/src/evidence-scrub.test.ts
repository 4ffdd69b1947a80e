import { indexSteps, type Capabilities, type StepInput } from '@botfleet/core';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { runExecution } from './run-execution';
import { REDACTED } from './run-secrets';
import { runSteps } from './step-interpreter';
import { scrubTraceZip } from './trace-scrub';
import {
  createMemorySession,
  fixedCredentials,
  readZipEntries,
  useBrowserFixture,
  type MemorySession,
} from './testing';

/*
 * Evidence never carries a login (docs/security.md), in real Chromium: a page that logs in on its
 * own with `Authorization: Basic` and gets `Set-Cookie: sid=...` back, in a run that holds no
 * registered secret, keeps a HAR and a trace without either value; a form posted with a filled
 * credential's password is dropped from the HAR whole; what a run holding a secret keeps is
 * marked to be sealed at rest.
 */

const USER = 'alice';
/** Built by the page from pieces, so the page's own source (a trace keeps it) never holds it whole. */
const PASSWORD = 'open-sesame-42';
const BASIC = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
const SID = 'sid-5f1c0ffee9d4b7a2';
const FILLED = 'fill-me-secret-77';

interface HarHeader {
  name: string;
  value: string;
}
interface HarEntry {
  request: {
    url: string;
    headers: HarHeader[];
    cookies: HarHeader[];
    postData?: { text?: string; params?: unknown[] };
  };
  response: { headers: HarHeader[]; cookies: HarHeader[] };
}

describe('evidence scrubbing', () => {
  const fixture = useBrowserFixture({
    routes: {
      '/login': `<!doctype html><title>Login</title><script>
        const password = ['open', 'sesame', '42'].join('-');
        fetch('/session', { method: 'POST', headers: { Authorization: 'Basic ' + btoa('${USER}:' + password) } })
          .then(() => fetch('/after'))
          .then(() => { const p = document.createElement('p'); p.id = 'ready'; p.textContent = 'ready'; document.body.append(p); });
      </script>`,
      '/session': (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Set-Cookie': `sid=${SID}; Path=/; HttpOnly` });
        res.end('{"ok":true}');
      },
      '/after': 'after',
      '/form': `<!doctype html><title>Form</title><form method="post" action="/submit">
        <input id="user" name="user" value="${USER}"><input id="pass" name="password" type="password">
        <button id="submit">Sign in</button></form>`,
      '/submit': '<!doctype html><title>Welcome</title><p id="done">Signed in</p>',
    },
  });

  function run(steps: StepInput[], capabilities: Capabilities, path: string) {
    const session = createMemorySession({
      credentials: fixedCredentials({ password: FILLED, username: USER }, [fixture.server.origin]),
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

  const onlyArtifact = (session: MemorySession, kind: string) => {
    const kept = [...session.artifacts.values()].filter((artifact) => artifact.kind === kind);
    expect(kept).toHaveLength(1);
    return kept[0]!;
  };
  const entryFor = (entries: HarEntry[], path: string) => {
    const entry = entries.find((e) => new URL(e.request.url).pathname === path);
    expect(entry).toBeDefined();
    return entry!;
  };
  const valuesOf = (headers: HarHeader[], name: string) =>
    headers.filter((header) => header.name.toLowerCase() === name).map((header) => header.value);

  const loggingIn: StepInput[] = [{ action: 'waitFor', selector: '#ready' }];

  it('keeps a HAR without the Basic credentials or the session cookie, header names kept', async () => {
    const { session, outcome } = run(loggingIn, { trace: 'off', har: true }, '/login');
    expect((await outcome).status).toBe('completed');
    // The page did send both: the server saw them.
    expect(fixture.server.requests.find((r) => r.path === '/session')?.headers.authorization).toBe(`Basic ${BASIC}`);
    expect(fixture.server.requests.find((r) => r.path === '/after')?.headers.cookie).toBe(`sid=${SID}`);

    const har = onlyArtifact(session, 'har');
    expect(har.sealed).toBe(false);
    const text = har.data.toString('utf8');
    for (const leak of [BASIC, PASSWORD, SID]) expect(text).not.toContain(leak);

    const { entries } = (JSON.parse(text) as { log: { entries: HarEntry[] } }).log;
    const login = entryFor(entries, '/session');
    expect(valuesOf(login.request.headers, 'authorization')).toEqual([REDACTED]);
    expect(valuesOf(login.response.headers, 'set-cookie')).toEqual([REDACTED]);
    expect(login.response.cookies).toEqual([expect.objectContaining({ name: 'sid', value: REDACTED })]);
    const after = entryFor(entries, '/after');
    expect(valuesOf(after.request.headers, 'cookie')).toEqual([REDACTED]);
    expect(after.request.cookies).toEqual([expect.objectContaining({ name: 'sid', value: REDACTED })]);
  });

  it('keeps a trace whose every entry is without the Basic credentials or the session cookie', async () => {
    const { session, outcome } = run(loggingIn, { trace: 'always' }, '/login');
    expect((await outcome).status).toBe('completed');
    const trace = onlyArtifact(session, 'trace');
    expect(trace.sealed).toBe(false);
    const entries = readZipEntries(trace.data);
    expect([...entries.keys()]).toEqual(expect.arrayContaining(['trace.trace', 'trace.network']));
    for (const [name, content] of entries) {
      for (const leak of [BASIC, SID]) expect({ name, holds: content.includes(leak) }).toEqual({ name, holds: false });
    }
    const network = entries.get('trace.network')!.toString('utf8');
    expect(network).toContain(`{"name":"Authorization","value":"${REDACTED}"}`);
    expect(network).toContain(`{"name":"Set-Cookie","value":"${REDACTED}"}`);
    expect(network).toContain(`{"name":"Cookie","value":"${REDACTED}"}`);
    // The rest of the trace is as Playwright wrote it: the viewer still has the run's requests.
    expect(network).toContain(fixture.server.url('/after'));
    expect(entries.get('trace.trace')!.toString('utf8')).toContain('"type":"frame-snapshot"');
  });

  it('drops the whole body of a request that carried a filled credential, and marks the HAR sealed', async () => {
    const { session, outcome } = run(
      [
        { action: 'fill', selector: '#pass', value: { credential: 'crd_x', field: 'password' } },
        { action: 'click', selector: '#submit' },
        { action: 'waitFor', selector: '#done' },
      ],
      { trace: 'off', har: true },
      '/form',
    );
    expect((await outcome).status).toBe('completed');
    expect(fixture.server.requests.find((r) => r.path === '/submit')?.body).toBe(`user=${USER}&password=${FILLED}`);

    const har = onlyArtifact(session, 'har');
    expect(har.sealed).toBe(true);
    const submitted = entryFor(
      (JSON.parse(har.data.toString('utf8')) as { log: { entries: HarEntry[] } }).log.entries,
      '/submit',
    );
    expect(submitted.request.postData).toEqual({
      mimeType: 'application/x-www-form-urlencoded',
      text: REDACTED,
      params: [],
    });
    expect(har.data.toString('utf8')).not.toContain(FILLED);
  });

  it('refuses to rewrite a trace past its bounds, so none is kept unscrubbed', async () => {
    const { session, outcome } = run(loggingIn, { trace: 'always' }, '/login');
    expect((await outcome).status).toBe('completed');
    const dir = await mkdtemp(join(tmpdir(), 'trace-scrub-'));
    try {
      const path = join(dir, 'trace.zip');
      const original = onlyArtifact(session, 'trace').data;
      await writeFile(path, original);
      await expect(scrubTraceZip(path, { maxBytes: 1_000_000, maxNetworkBytes: 100 })).rejects.toThrow(
        /trace\.network is larger than 100 bytes/,
      );
      await expect(scrubTraceZip(path, { maxBytes: 100, maxNetworkBytes: 1_000_000 })).rejects.toThrow(
        /larger than 100 bytes/,
      );
      // Left as it was, and nothing half-written beside it.
      expect(await readFile(path)).toEqual(original);
      expect(await readdir(dir)).toEqual(['trace.zip']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
