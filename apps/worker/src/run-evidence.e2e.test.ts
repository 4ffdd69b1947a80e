import { createArtifactStore, type ArtifactStore } from '@botfleet/db';
import { readZipEntries } from '@botfleet/runner/testing';
import { startFixtureServer, startS3TestServer, type FixtureServer, type S3TestServer } from '@botfleet/testkit';
import { createE2eHarness, type E2eHarness } from './testing';

/*
 * Run evidence end to end (contract-3 section 7), through the API and a real worker in Chromium,
 * once with each artifact store: PostgreSQL, and S3 against a real S3-compatible server (s3rver).
 * A failed run keeps a Playwright trace with the failing step, its DOM snapshots and the page's
 * console error; a completed run keeps none unless asked; a HAR and a screenshot per step when
 * asked; the page's own console lines land in the run's logs. Every artifact downloads through
 * its signed URL.
 */

const PAGE = `<!doctype html><title>Shop</title>
  <button id="go" onclick="document.getElementById('out').textContent = 'clicked'">Go</button>
  <p id="out"></p>
  <script>console.error('boom from the page'); fetch('/missing.json').catch(() => {});</script>`;

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
    site = await startFixtureServer({ '/': PAGE });
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
});
