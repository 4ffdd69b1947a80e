import type { ArtifactContent, SecretBox } from '@botfleet/core';
import { createReadStream, createWriteStream } from 'node:fs';
import { readFile, rm, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { pipeline } from 'node:stream/promises';

/*
 * Where a run's artifacts (screenshots, traces, HARs, downloads) keep their content: the
 * artifact store, chosen by ARTIFACT_STORE. The Artifact row (kind, size, step, run) always lives
 * in PostgreSQL, written by @botfleet/db's repositories with what `put` answers; the store decides
 * where the bytes go, and is no database repository, so it lives in a package of its own. `postgres` (the default, for one machine)
 * keeps them in the row; `s3` streams them into a bucket (s3-artifact-store.ts) and the row keeps
 * the object's key. Content is put before its row is written, and read back as a stream. The
 * content of a run that held secret values is sealed with SECRETS_KEY in either store
 * (putArtifactContent) and opened as it is read (openArtifactContent).
 */

/** Where `put` left the content: in the row (`data`) or in the bucket (`storageKey`). */
export interface PlacedArtifactContent {
  data: Buffer | null;
  storageKey: string | null;
  bytes: number;
}

/** What a stored artifact's row says about its content. */
export interface ArtifactContentRef {
  data: Uint8Array | null;
  storageKey: string | null;
}

/** A row's content reference and whether the content is sealed (sealArtifactContent). */
export interface StoredArtifactRef extends ArtifactContentRef {
  sealed: boolean;
}

/**
 * The row exists but the store has no content for it (an object deleted from the bucket by hand
 * or by a lifecycle rule): the artifact is gone, which the API answers as 404.
 */
export class ArtifactContentMissing extends Error {}

export interface ArtifactStore {
  readonly kind: 'postgres' | 's3';
  /** Stores the content of artifact `artifactId` of `executionId` (before its row is written). */
  put(
    ref: { executionId: string; artifactId: string; contentType: string },
    content: ArtifactContent,
  ): Promise<PlacedArtifactContent>;
  /** The content, as a stream (an S3 object is not loaded whole into memory). */
  open(ref: ArtifactContentRef): Promise<Readable>;
  /** Deletes stored objects of rows being deleted (retention, a deleted bot); nothing for postgres. */
  remove(storageKeys: readonly string[]): Promise<void>;
  /** Releases connections. */
  close(): Promise<void>;
}

/** ARTIFACT_STORE=postgres: the bytes live in the Artifact row, as they always did. */
export function createPostgresArtifactStore(): ArtifactStore {
  return {
    kind: 'postgres',
    async put(_ref, content) {
      const data = Buffer.isBuffer(content) ? content : await readFile(content.path);
      return { data, storageKey: null, bytes: data.length };
    },
    async open(ref) {
      if (ref.data === null) throw new Error('the artifact was stored in another artifact store (ARTIFACT_STORE)');
      return Readable.from([Buffer.from(ref.data.buffer, ref.data.byteOffset, ref.data.byteLength)]);
    },
    async remove() {},
    async close() {},
  };
}

/**
 * Puts an artifact's content in the store, sealed with `sealWith` when given; what its row
 * records of it. A sealed artifact's `bytes` is its plain size, what a download sends.
 */
export async function putArtifactContent(
  store: ArtifactStore,
  ref: { executionId: string; artifactId: string; contentType: string },
  content: ArtifactContent,
  sealWith: SecretBox | null,
): Promise<PlacedArtifactContent & { sealed: boolean }> {
  if (!sealWith) return { ...(await store.put(ref, content)), sealed: false };
  const sealed = await sealArtifactContent(sealWith, content);
  try {
    return { ...(await store.put(ref, sealed.content)), bytes: sealed.plainBytes, sealed: true };
  } finally {
    await sealed.discard();
  }
}

/** Content sealed for the store, the size of what was sealed, and how to delete a sealed copy. */
interface SealedArtifactContent {
  content: ArtifactContent;
  /** The plain content's size: what a download sends and the row's `bytes` say. */
  plainBytes: number;
  /** Deletes the sealed file written next to a file's content (nothing for bytes). */
  discard(): Promise<void>;
}

/**
 * Seals an artifact's content with SECRETS_KEY before it is put in a store, whichever store:
 * the content of a run that held secret values may show them (docs/security.md), and a database
 * dump or a bucket must not. A file is sealed into a file beside it, as it streams, so a
 * 100 MiB trace is never whole in memory; the caller discards that copy once it is stored.
 */
async function sealArtifactContent(box: SecretBox, content: ArtifactContent): Promise<SealedArtifactContent> {
  if (Buffer.isBuffer(content)) {
    return { content: await sealArtifactBytes(box, content), plainBytes: content.length, discard: async () => {} };
  }
  const path = `${content.path}.sealed`;
  const discard = () => rm(path, { force: true });
  try {
    const { size } = await stat(content.path);
    await pipeline(createReadStream(content.path), box.sealStream(), createWriteStream(path, { mode: 0o600 }));
    return { content: { path }, plainBytes: size, discard };
  } catch (error) {
    await discard();
    throw error;
  }
}

/**
 * Small content sealed whole in memory, for an artifact kept in its row (a failure screenshot);
 * opened by openArtifactContent like any sealed artifact.
 */
export async function sealArtifactBytes(box: SecretBox, content: Buffer): Promise<Buffer> {
  const sealer = box.sealStream();
  const sealed = buffer(sealer);
  sealer.end(content);
  return sealed;
}

/**
 * An artifact's plain content as a stream, whichever store holds it: sealed content is opened
 * with SECRETS_KEY as it flows. Every download goes through here.
 */
export async function openArtifactContent(
  store: ArtifactStore,
  box: SecretBox | undefined,
  ref: StoredArtifactRef,
): Promise<Readable> {
  if (!ref.sealed) return store.open(ref);
  if (!box) throw new Error('the artifact is sealed and this process has no SECRETS_KEY');
  const content = await store.open(ref);
  const opener = box.openStream();
  // Either end's failure or early close (a client gone mid-download) ends both.
  content.once('error', (error) => opener.destroy(error));
  opener.once('close', () => content.destroy());
  return content.pipe(opener);
}
