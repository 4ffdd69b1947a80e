import { createArtifactUrlSigner } from '@botfleet/core';
import { createArtifactStore, type ArtifactStore } from '@botfleet/artifacts';
import { newArtifactId } from '@botfleet/db';
import { artifactInRow, createTestExecution, seedProgress } from '@botfleet/db/testing';
import { startS3TestServer, type S3TestServer } from '@botfleet/testkit';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { createApiHarness, type ApiHarness, type TestOrg } from '../testing';

/*
 * The signed artifact URL with ARTIFACT_STORE=s3, against a real S3-compatible server: an
 * artifact in the bucket streams out of the route, one kept in its row (the failure screenshot,
 * anything from before the switch) is served as before, and deleting the bot empties the bucket.
 */

let s3: S3TestServer;
let store: ArtifactStore;
let h: ApiHarness;
let org: TestOrg;

beforeAll(async () => {
  s3 = await startS3TestServer();
  store = createArtifactStore(s3.storeSettings);
  h = await createApiHarness({}, { artifactStore: store });
  org = await h.newOrg();
}, 30_000);
afterAll(async () => {
  await h?.close();
  await store?.close();
  await s3?.close();
});

/** The path of the artifact's signed URL, as the API hands it out. */
function signedPath(artifactId: string): string {
  const { urlSigningKey, publicBaseUrl, screenshotUrlTtlSeconds } = h.deps.settings;
  const url = new URL(createArtifactUrlSigner(urlSigningKey, publicBaseUrl, screenshotUrlTtlSeconds).sign(artifactId));
  return `${url.pathname}${url.search}`;
}

/** Downloads the artifact through its signed URL, keeping the body as bytes whatever its type. */
function download(artifactId: string) {
  return request(h.app)
    .get(signedPath(artifactId))
    .buffer(true)
    .parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    });
}

async function newRun() {
  const botId = await h.newBot(org);
  const execution = await createTestExecution(h.db, { botId, organizationId: org.id });
  return { botId, executionId: execution.id };
}

it('streams an artifact kept in S3 through its signed URL', async () => {
  const { executionId } = await newRun();
  const content = randomBytes(3 * 1024 * 1024);
  const id = newArtifactId();
  const placed = await store.put({ executionId, artifactId: id, contentType: 'application/zip' }, content);
  expect(placed.storageKey).toBe(`${executionId}/${id}`);
  await seedProgress(h.db, executionId, {
    steps: [],
    logs: [],
    artifacts: [{ id, kind: 'trace', contentType: 'application/zip', ...placed }],
  });

  const res = await download(id);
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('application/zip');
  expect(res.headers['content-length']).toBe(String(content.length));
  expect(Buffer.compare(res.body as Buffer, content)).toBe(0);
});

it('answers 404 with the envelope when the bucket no longer has the object', async () => {
  const { executionId } = await newRun();
  const id = newArtifactId();
  const placed = await store.put({ executionId, artifactId: id, contentType: 'image/png' }, randomBytes(1000));
  await seedProgress(h.db, executionId, {
    steps: [],
    logs: [],
    artifacts: [{ id, kind: 'screenshot', contentType: 'image/png', ...placed }],
  });
  // Gone from the bucket (a lifecycle rule, a person), its row still there.
  await store.remove([placed.storageKey!]);

  const res = await download(id);
  expect(res.status).toBe(404);
  expect(JSON.parse((res.body as Buffer).toString('utf8'))).toEqual({
    error: { code: 'not_found', message: 'Artifact not found' },
  });
});

it('still serves an artifact kept in its row', async () => {
  const { executionId } = await newRun();
  const screenshot = artifactInRow('screenshot', 'image/png', Buffer.from('a png in the row'));
  await seedProgress(h.db, executionId, { steps: [], logs: [], artifacts: [screenshot] });

  const res = await download(screenshot.id);
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('image/png');
  expect((res.body as Buffer).toString()).toBe('a png in the row');
});

it("removes a deleted bot's objects from the bucket", async () => {
  const { botId, executionId } = await newRun();
  const id = newArtifactId();
  const placed = await store.put({ executionId, artifactId: id, contentType: 'application/zip' }, Buffer.from('zip'));
  await seedProgress(h.db, executionId, {
    steps: [],
    logs: [],
    artifacts: [{ id, kind: 'trace', contentType: 'application/zip', ...placed }],
  });

  const deleted = await request(h.app).delete(`/api/v1/bots/${botId}`).set(org.auth('write'));
  expect(deleted.status).toBe(204);
  await expect(store.open(placed)).rejects.toThrow('NoSuchKey');
  // The row went with the bot: the URL now names nothing.
  const res = await download(id);
  expect(res.status).toBe(404);
});
