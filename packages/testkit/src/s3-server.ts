import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitUntil } from './wait-until';

export interface S3TestServer {
  /** `http://127.0.0.1:<port>`: path-style addressing (S3_FORCE_PATH_STYLE=true). */
  readonly endpoint: string;
  /** A bucket that exists from the start. */
  readonly bucket: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly region: string;
  /** The artifact store's settings for this server (ARTIFACT_STORE=s3 with its S3_* variables). */
  readonly storeSettings: {
    kind: 's3';
    bucket: string;
    endpoint: string;
    region: string;
    credentials: { accessKeyId: string; secretAccessKey: string };
    forcePathStyle: true;
  };
  /** Everything the server wrote, for a failure message. */
  output(): string;
  /** Stops the server (SIGKILL), waits for it to exit and removes its objects. */
  close(): Promise<void>;
}

/** s3rver's only key pair: it checks SigV4 signatures against it and refuses any other key. */
const S3RVER_KEY = 'S3RVER';
const BUCKET = 'botfleet-test';
const OUTPUT_TAIL_CHARS = 4_000;

/**
 * A throwaway S3-compatible server of the test's own: s3rver (an npm dev dependency of this
 * package, so `npm ci` installs it with no download of its own), in a child process on a free
 * loopback port, keeping its objects on disk in a temporary directory. It speaks the S3 REST API
 * the AWS SDK v3 uses (PutObject, multipart uploads, streamed GetObject, DeleteObjects, signed
 * with SigV4) and creates `bucket` at start. A process of its own, so the test process's memory
 * and event loop are the client's alone.
 */
export async function startS3TestServer(): Promise<S3TestServer> {
  const directory = mkdtempSync(join(tmpdir(), 'botfleet-s3-'));
  const child = spawn(
    process.execPath,
    [
      require.resolve('s3rver/bin/s3rver.js'),
      '--directory',
      directory,
      '--address',
      '127.0.0.1',
      // 0: the server picks a free port and says which, so no other process can take it first.
      '--port',
      '0',
      '--silent',
      '--no-vhost-buckets',
      '--configure-bucket',
      BUCKET,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-OUTPUT_TAIL_CHARS));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  async function close(): Promise<void> {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    rmSync(directory, { recursive: true, force: true });
  }

  let port: number;
  try {
    port = await waitUntil(
      () => {
        if (child.exitCode !== null) throw new Error(`s3rver exited (${child.exitCode}): ${output}`);
        const listening = /S3rver listening on [\d.]+:(\d+)/.exec(output);
        return listening ? Number(listening[1]) : null;
      },
      { timeoutMs: 20_000, message: `s3rver did not start: ${output}` },
    );
  } catch (error) {
    await close();
    throw error;
  }
  const endpoint = `http://127.0.0.1:${port}`;
  const region = 'us-east-1';
  const credentials = { accessKeyId: S3RVER_KEY, secretAccessKey: S3RVER_KEY };
  return {
    endpoint,
    bucket: BUCKET,
    ...credentials,
    region,
    storeSettings: { kind: 's3', bucket: BUCKET, endpoint, region, credentials, forcePathStyle: true },
    output: () => output,
    close,
  };
}
