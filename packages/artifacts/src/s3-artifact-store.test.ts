import { startS3TestServer, type S3TestServer } from '@botfleet/testkit';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { ArtifactStore } from './artifact-store';
import { createArtifactStore } from './create-artifact-store';
import { createS3ArtifactStore } from './s3-artifact-store';

/*
 * The S3 artifact store against a real S3-compatible server (s3rver in a child process, through
 * the AWS SDK over HTTP on loopback): what goes in comes back byte for byte, as a stream.
 */

let server: S3TestServer;
let store: ArtifactStore;
let dir: string;

const settingsOf = (
  s: S3TestServer,
  credentials = { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey },
) => ({
  bucket: s.bucket,
  endpoint: s.endpoint,
  region: s.region,
  credentials,
  forcePathStyle: true,
});

beforeAll(async () => {
  server = await startS3TestServer();
  store = createArtifactStore({ kind: 's3', ...settingsOf(server) });
  dir = mkdtempSync(join(tmpdir(), 'botfleet-s3-store-'));
}, 30_000);
afterAll(async () => {
  await store?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Reads a stream to its end, keeping only its hash, length and largest chunk (never the whole). */
async function digest(
  stream: Readable,
): Promise<{ sha256: string; bytes: number; chunks: number; largestChunk: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  let chunks = 0;
  let largestChunk = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytes += chunk.length;
    chunks += 1;
    largestChunk = Math.max(largestChunk, chunk.length);
  }
  return { sha256: hash.digest('hex'), bytes, chunks, largestChunk };
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
let next = 0;
const ref = (contentType = 'image/png') => ({ executionId: `exec${++next}`, artifactId: `art${next}`, contentType });

it('puts a buffer under <executionId>/<artifactId> and streams it back', async () => {
  const content = randomBytes(70_000);
  const placed = await store.put({ executionId: 'e1', artifactId: 'a1', contentType: 'image/png' }, content);
  expect(placed).toEqual({ data: null, storageKey: 'e1/a1', bytes: content.length });
  const back = await digest(await store.open(placed));
  expect(back).toMatchObject({ sha256: sha256(content), bytes: content.length });
});

/** Runs `use` while sampling the process's resident memory; answers its result and how far memory rose above the start. */
async function withPeakRss<T>(use: () => Promise<T>): Promise<{ result: T; rose: number }> {
  const start = process.memoryUsage().rss;
  let peak = start;
  const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  try {
    const result = await use();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, rose: peak - start };
  } finally {
    clearInterval(sample);
  }
}

it('streams a 64 MiB file in (in parts) and out (in chunks) byte for byte, never holding it whole', async () => {
  const path = join(dir, 'trace.zip');
  const size = 64 * 1024 * 1024 + 12_345;
  const hash = createHash('sha256');
  const out = createWriteStream(path);
  for (let written = 0; written < size;) {
    const chunk = randomBytes(Math.min(1024 * 1024, size - written));
    hash.update(chunk);
    written += chunk.length;
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await finished(out);

  const up = await withPeakRss(() => store.put(ref('application/zip'), { path }));
  expect(up.result).toMatchObject({ data: null, bytes: size });
  const down = await digest(await store.open(up.result));
  expect(down.sha256).toBe(hash.digest('hex'));
  expect(down.bytes).toBe(size);
  // Read as it arrives: many chunks, none near the object's size (what the process holds at once
  // is measured by the chunks, not by RSS, which the collector's timing moves by tens of MiB).
  expect(down.chunks).toBeGreaterThan(64);
  expect(down.largestChunk).toBeLessThan(2 * 1024 * 1024);
  // An upload holds a few 8 MiB parts (20-40 MiB seen): well below the file, with room for the
  // collector's timing.
  expect(up.rose).toBeLessThan(size);
}, 60_000);

it('reads an artifact kept in its row (the failure screenshot, one from before the switch) from the row', async () => {
  const data = Buffer.from('in the row');
  const back = await digest(await store.open({ data: new Uint8Array(data), storageKey: null }));
  expect(back.sha256).toBe(sha256(data));
});

it('removes objects, in batches of 1000, and a removed one no longer opens', async () => {
  const kept = await store.put(ref(), Buffer.from('kept'));
  const first = await store.put(ref(), Buffer.from('first'));
  const last = await store.put(ref(), Buffer.from('last'));
  // 1001 keys: `last` only in the second request. Keys that are not there are no error (S3's delete is idempotent).
  const missing = Array.from({ length: 999 }, (_, i) => `gone/${i}`);
  await store.remove([first.storageKey!, ...missing, last.storageKey!]);

  for (const removed of [first, last]) {
    await expect(store.open(removed)).rejects.toThrow(
      `S3 download of s3://${server.bucket}/${removed.storageKey!} failed: NoSuchKey`,
    );
  }
  expect((await digest(await store.open(kept))).bytes).toBe(4);
  await store.remove([]);
});

it('says which bucket and key failed, and why, without the secret, when the credentials are wrong', async () => {
  // s3rver checks the key id of a SigV4 request, not its signature: a wrong key pair, then.
  const secret = 'wrong-secret-9f8e7d6c5b4a';
  const wrong = createS3ArtifactStore(settingsOf(server, { accessKeyId: 'NOT-A-KEY', secretAccessKey: secret }));
  try {
    const failure = await wrong
      .put({ executionId: 'e2', artifactId: 'a2', contentType: 'image/png' }, Buffer.from('x'))
      .then(
        () => null,
        (error: unknown) => error as Error,
      );
    expect(failure?.message).toMatch(
      new RegExp(
        `^S3 upload of s3://${server.bucket}/e2/a2 failed: InvalidAccessKeyId \\(HTTP 403\\): The AWS Access Key Id you provided does not exist`,
      ),
    );
    expect(failure?.message).not.toContain(secret);
    expect(JSON.stringify(failure)).not.toContain(secret);
  } finally {
    await wrong.close();
  }
});

it('says so when the server cannot be reached', async () => {
  const away = createS3ArtifactStore({ ...settingsOf(server), endpoint: 'http://127.0.0.1:1' });
  try {
    await expect(away.open({ data: null, storageKey: 'e3/a3' })).rejects.toThrow(
      `S3 download of s3://${server.bucket}/e3/a3 failed:`,
    );
  } finally {
    await away.close();
  }
});
