import { DeleteObjectsCommand, GetObjectCommand, NoSuchKey, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { S3Settings } from '@botfleet/core';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { ArtifactContentMissing, createPostgresArtifactStore, type ArtifactStore } from './artifact-store';

/** DeleteObjects takes at most this many keys per request. */
const DELETE_BATCH_SIZE = 1000;
/**
 * A file goes up in parts of this size, at most UPLOAD_QUEUE_SIZE at once, so an upload holds
 * about 16 MiB whatever the file's size (S3's smallest part is 5 MiB); content up to one part
 * goes up in a single PutObject.
 */
const UPLOAD_PART_BYTES = 8 * 1024 * 1024;
const UPLOAD_QUEUE_SIZE = 2;

/**
 * ARTIFACT_STORE=s3: each artifact is the object `<executionId>/<artifactId>` in the bucket, and
 * its row keeps that key. Content streams both ways: a trace is uploaded from its file in parts
 * and downloaded as the response body, never whole in memory. Rows that keep their bytes (the
 * failure screenshot, artifacts from before the switch) are read from the row.
 */
export function createS3ArtifactStore(settings: S3Settings): ArtifactStore {
  const { bucket } = settings;
  const client = new S3Client({
    region: settings.region,
    endpoint: settings.endpoint,
    forcePathStyle: settings.forcePathStyle,
    credentials: settings.credentials,
    // Checksums only where the S3 API requires one (DeleteObjects): the SDK's default sends
    // uploads as aws-chunked bodies with checksum trailers, which many S3-compatible servers
    // refuse or store as is.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const rowStore = createPostgresArtifactStore();

  return {
    kind: 's3',
    async put(ref, content) {
      const key = `${ref.executionId}/${ref.artifactId}`;
      const body = Buffer.isBuffer(content) ? content : createReadStream(content.path);
      try {
        const bytes = Buffer.isBuffer(content) ? content.length : (await stat(content.path)).size;
        const upload = new Upload({
          client,
          params: { Bucket: bucket, Key: key, Body: body, ContentType: ref.contentType },
          partSize: UPLOAD_PART_BYTES,
          queueSize: UPLOAD_QUEUE_SIZE,
          // A failed multipart upload is aborted, so its parts do not linger (and cost) in the bucket.
          leavePartsOnError: false,
        });
        await upload.done();
        return { data: null, storageKey: key, bytes };
      } catch (error) {
        throw s3Error('upload of', `s3://${bucket}/${key}`, error);
      } finally {
        if (body instanceof Readable) body.destroy();
      }
    },
    async open(ref) {
      if (ref.storageKey === null) return rowStore.open(ref);
      const key = ref.storageKey;
      try {
        const { Body } = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        // In Node the body is the HTTP response itself: read as it arrives.
        if (!(Body instanceof Readable)) throw new Error('the response has no readable body');
        return Body;
      } catch (error) {
        const failure = s3Error('download of', `s3://${bucket}/${key}`, error);
        throw error instanceof NoSuchKey ? new ArtifactContentMissing(failure.message) : failure;
      }
    },
    async remove(storageKeys) {
      const keys = [...new Set(storageKeys)];
      for (let start = 0; start < keys.length; start += DELETE_BATCH_SIZE) {
        const batch = keys.slice(start, start + DELETE_BATCH_SIZE);
        let errors;
        try {
          const output = await client.send(
            new DeleteObjectsCommand({
              Bucket: bucket,
              // Quiet: the answer lists only the keys that could not be deleted.
              Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
            }),
          );
          errors = output.Errors ?? [];
        } catch (error) {
          throw s3Error(`delete of ${batch.length} objects from`, `s3://${bucket} (${batch[0]!}, …)`, error);
        }
        const first = errors[0];
        if (first) {
          throw new Error(
            `S3 delete of ${errors.length} of ${batch.length} objects failed, e.g. s3://${bucket}/${first.Key ?? '?'}: ${first.Code ?? 'error'}: ${first.Message ?? ''}`,
          );
        }
      }
    },
    async close() {
      client.destroy();
    },
  };
}

/**
 * An error that says what failed where (operation, bucket, key) and why (S3's error code and
 * HTTP status, or the network error), and nothing else: never the credentials or the request.
 */
function s3Error(operation: string, where: string, error: unknown): Error {
  let why: string;
  if (error instanceof S3ServiceException) {
    const status = error.$metadata.httpStatusCode;
    why = `${error.name}${status === undefined ? '' : ` (HTTP ${status})`}: ${error.message}`;
  } else {
    why = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  }
  return new Error(`S3 ${operation} ${where} failed: ${why}`);
}
