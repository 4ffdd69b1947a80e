import { createArtifactStore, type ArtifactStore } from '@botfleet/artifacts';
import { createCredential } from '@botfleet/db';
import { readZipEntries } from '@botfleet/runner/testing';
import { startFixtureServer, startS3TestServer, type FixtureServer, type S3TestServer } from '@botfleet/testkit';
import { createE2eHarness, type E2eHarness } from './testing';

/*
 * Run evidence end to end (docs/runs.md), through the API and a real worker in Chromium,
 * once with each artifact store: PostgreSQL, and S3 against a real S3-compatible server (s3rver).
 * A failed run keeps a Playwright trace with the failing step, its DOM snapshots and the page's
 * console error; a completed run keeps none unless asked; a HAR and a screenshot per step when
 * asked; the page's own console lines land in the run's logs. Every artifact downloads through
 * its signed URL. What a run that held a secret keeps is sealed at rest in either store, and
 * downloads plain.
 */

const PAGE = `<!doctype html><title>Shop</title>
  <button id="go" onclick="document.getElementById('out').textContent = 'clicked'">Go</button>
  <p id="out"></p>
  <script>console.error('boom from the page'); fetch('/missing.json').catch(() => {});</script>`;
const LOGIN_PAGE = `<!doctype html><title>Login</title><form method="post" action="/submit">
  <input id="pass" name="password" type="password"><button id="submit">Sign in</button></form>`;
const PASSWORD = 'sealed-at-rest-31';
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

interface ArtifactView {
  id: string;
  kind: string;
  stepIndex?: number;
  contentType: string;
  bytes: number;
  url: string;
}

describe.each(['postgres', 's3'] as const)('run evidence with ARTIFACT_STORE=%s', (storeKind) => {
  let s3: S3TestServer | undefined;
  let store: ArtifactStore;
  let h: E2eHarness;
  let site: FixtureServer;

  beforeAll(async () => {
    if (storeKind === 's3') {
      s3 = await startS3TestServer();
      store = createArtifactStore(s3.storeSettings);
    } else {
      store = createArtifactStore({ kind: 'postgres' });
    }
    h = await createE2eHarness({ artifactStore: store });
    site = await startFixtureServer({ '/': PAGE, '/login': LOGIN_PAGE, '/submit': '<p id="done">Signed in</p>' });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await store?.close();
    await s3?.close();
    await site?.close();
  });

  async function run(capabilities: object, steps: object[]) {
    const botId = await h.createBot({ targetUrl: site.url('/'), manifest: { capabilities }, steps });
    const executionId = await h.trigger(botId);
    const view = await h.waitForFinal(executionId, 60_000);
    const artifacts = (await h.get(`/api/v1/executions/${executionId}/artifacts`)).body.data as ArtifactView[];
    return { executionId, view, artifacts };
  }

  /** An artifact's bytes through its signed URL, checked against what the list said of it. */
  async function download(artifact: ArtifactView): Promise<Buffer> {
    const res = await h.download(artifact.url);
    expect(res.status).toBe(200);
    expect(res.contentType).toContain(artifact.contentType);
    expect(res.body.length).toBe(artifact.bytes);
    return res.body;
  }

  /** A credential holding PASSWORD that fills on the fixture site. */
  function passwordCredential(name: string) {
    return createCredential(h.api.db, h.org.id, {
      name,
      username: null,
      passwordEnc: h.api.deps.secretBox.encrypt(PASSWORD),
      totpEnc: null,
      origins: [site.origin],
    });
  }

  /** Where the store kept the artifact's content: in the row, or as an object in the bucket. */
  async function placement(artifactId: string) {
    const row = await h.api.db.artifact.findUniqueOrThrow({ where: { id: artifactId } });
    return { inRow: row.data !== null, inBucket: row.storageKey !== null };
  }

  it('keeps a trace of a failed run with the failing step, its DOM snapshots and the page’s console error', async () => {
    const { executionId, view, artifacts } = await run({}, [
      { action: 'click', selector: '#go' },
      { action: 'waitFor', selector: '#never', timeout: 500 },
    ]);
    expect(view.status).toBe('failed');
    const trace = artifacts.find((a) => a.kind === 'trace');
    expect(trace).toMatchObject({ contentType: 'application/zip', bytes: expect.any(Number) });
    expect(await placement(trace!.id)).toEqual(
      storeKind === 's3' ? { inRow: false, inBucket: true } : { inRow: true, inBucket: false },
    );

    const entries = readZipEntries(await download(trace!));
    const events = entries.get('trace.trace')!.toString('utf8');
    expect(events).toMatch(/"selector":"#never/);
    expect(events).toContain('boom from the page');
    expect(events).toContain('"type":"frame-snapshot"');
    expect(entries.get('trace.network')!.toString('utf8')).toContain('/missing.json');

    // The page's console and its failed request are in the run's logs too.
    const logs = (await h.get(`/api/v1/executions/${executionId}/logs`)).body.data as {
      source: string;
      message: string;
    }[];
    const pageLines = logs.filter((l) => l.source === 'page').map((l) => l.message);
    expect(pageLines).toEqual(
      expect.arrayContaining([expect.stringContaining('boom from the page'), expect.stringContaining('/missing.json')]),
    );
  });

  it('keeps no trace of a completed run by default, and one with trace "always"', async () => {
    const steps = [{ action: 'click', selector: '#go' }];
    const byDefault = await run({}, steps);
    expect(byDefault.view.status).toBe('completed');
    expect(byDefault.artifacts.filter((a) => a.kind === 'trace')).toEqual([]);

    const always = await run({ trace: 'always' }, steps);
    expect(always.view.status).toBe('completed');
    const [trace] = always.artifacts.filter((a) => a.kind === 'trace');
    expect(readZipEntries(await download(trace!)).has('trace.trace')).toBe(true);
  });

  it('keeps a HAR of the page’s requests and a screenshot after every step when asked', async () => {
    const { view, artifacts } = await run({ trace: 'off', har: true, stepScreenshots: true }, [
      { action: 'click', selector: '#go' },
      { action: 'waitFor', selector: '#out:has-text("clicked")' },
    ]);
    expect(view.status).toBe('completed');
    expect(artifacts.filter((a) => a.kind === 'trace')).toEqual([]);

    const har = JSON.parse((await download(artifacts.find((a) => a.kind === 'har')!)).toString('utf8')) as {
      log: { entries: { request: { url: string }; response: { status: number } }[] };
    };
    expect(har.log.entries.map((e) => [new URL(e.request.url).pathname, e.response.status])).toEqual(
      expect.arrayContaining([
        ['/', 200],
        ['/missing.json', 404],
      ]),
    );

    const shots = artifacts.filter((a) => a.kind === 'stepScreenshot');
    expect(shots.map((a) => a.stepIndex)).toEqual([0, 1]);
    for (const shot of shots) expect((await download(shot)).subarray(1, 4).toString('latin1')).toBe('PNG');
  });

  it('seals the artifacts of a run that held a secret at rest, and downloads them plain', async () => {
    const credential = await passwordCredential('sealed');
    const botId = await h.createBot({
      targetUrl: site.url('/login'),
      manifest: { capabilities: { trace: 'off', har: true } },
      steps: [
        { action: 'fill', selector: '#pass', value: { credential: credential.id, field: 'password' } },
        { action: 'click', selector: '#submit' },
        { action: 'waitFor', selector: '#done' },
      ],
    });
    const executionId = await h.trigger(botId);
    expect((await h.waitForFinal(executionId, 60_000)).status).toBe('completed');
    const artifacts = (await h.get(`/api/v1/executions/${executionId}/artifacts`)).body.data as ArtifactView[];
    const har = artifacts.find((a) => a.kind === 'har')!;

    // At rest: neither the row nor the bucket holds the HAR's JSON.
    const row = await h.api.db.artifact.findUniqueOrThrow({ where: { id: har.id } });
    expect(row.sealed).toBe(true);
    const stored = await store.open({ data: row.data, storageKey: row.storageKey });
    const atRest = Buffer.concat(await stored.toArray());
    expect(atRest.length).toBeGreaterThan(har.bytes);
    for (const plain of ['"entries"', '/submit', 'password']) expect(atRest.includes(plain)).toBe(false);

    // Downloaded: the plain HAR, the posted form in it dropped whole.
    const text = (await download(har)).toString('utf8');
    const entries = (JSON.parse(text) as { log: { entries: { request: { url: string; postData?: object } }[] } }).log
      .entries;
    const submitted = entries.find((e) => new URL(e.request.url).pathname === '/submit');
    expect(submitted?.request.postData).toMatchObject({ text: '********', params: [] });
    expect(text).not.toContain(PASSWORD);
  });

  it('seals the failure screenshot of a run that held a secret, and serves it plain', async () => {
    const credential = await passwordCredential('sealed failure');
    const botId = await h.createBot({
      targetUrl: site.url('/login'),
      manifest: { capabilities: { trace: 'off' } },
      steps: [
        { action: 'fill', selector: '#pass', value: { credential: credential.id, field: 'password' } },
        { action: 'click', selector: '#does-not-exist', timeout: 500 },
      ],
    });
    const executionId = await h.trigger(botId);
    expect((await h.waitForFinal(executionId, 60_000)).status).toBe('failed');
    // Kept in its row whatever the store, sealed there.
    const row = await h.api.db.artifact.findFirstOrThrow({ where: { executionId, kind: 'failure-screenshot' } });
    expect(row.sealed).toBe(true);
    expect(row.data?.subarray(0, 8)).not.toEqual(PNG_SIGNATURE);
    expect(row.bytes).toBeLessThan(row.data?.length ?? 0);

    const failure = (await h.get(`/api/v1/executions/${executionId}/failure`)).body as { screenshotUrl: string };
    const png = await download({
      id: row.id,
      kind: row.kind,
      contentType: 'image/png',
      bytes: row.bytes,
      url: failure.screenshotUrl,
    });
    expect(png.subarray(0, 8)).toEqual(PNG_SIGNATURE);
  });
});
