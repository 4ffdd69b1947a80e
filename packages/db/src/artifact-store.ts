import type { ArtifactContent } from '@botfleet/core';
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';

/*
 * Where a run's artifacts (screenshots, traces, HARs, downloads) keep their content: the
 * artifact store, chosen by ARTIFACT_STORE. The Artifact row (kind, size, step, run) always lives
 * in PostgreSQL; the store decides where the bytes go. `postgres` (the default, for one machine)
 * keeps them in the row; `s3` streams them into a bucket (s3-artifact-store.ts) and the row keeps
 * the object's key. Content is put before its row is written, and read back as a stream.
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
