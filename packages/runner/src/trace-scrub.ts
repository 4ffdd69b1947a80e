/*
 * fflate (pinned in package.json) rewrites the trace zip: it is small, has no dependencies, ships
 * its own types, is maintained, and reads and writes zips as streams (Unzip, Zip), so a trace up
 * to MAX_TRACE_BYTES passes through in chunks. Playwright's own yazl/yauzl sit inside
 * playwright-core's bundle and are not ours to import; yauzl also needs the whole file to seek in.
 */
import { Unzip, UnzipInflate, Zip, ZipDeflate, ZipPassThrough, strFromU8, strToU8, type UnzipFile } from 'fflate';
import { createReadStream, createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { scrubNetworkEntry } from './network-scrub';

/** A trace's network log: `trace.network`, and `<n>-trace.network` for each later chunk. */
const NETWORK_ENTRY = /(^|\/)([^/]*-)?trace\.network$/;

export interface TraceScrubLimits {
  /** The rewritten zip may not grow past this (it is what the run keeps). */
  maxBytes: number;
  /** A network log is parsed whole, line by line: it may not be larger than this, unzipped. */
  maxNetworkBytes: number;
}

/**
 * Rewrites the Playwright trace zip at `path` in place with every network entry scrubbed
 * (scrubNetworkEntry: credential header values and cookies read REDACTED); every other entry is
 * copied as it streams, compressed as it was. A trace that cannot be rewritten within the limits
 * throws, and the caller keeps none: a trace is kept scrubbed or not at all.
 */
export async function scrubTraceZip(path: string, limits: TraceScrubLimits): Promise<void> {
  const scrubbedPath = `${path}.scrubbed`;
  const output = createWriteStream(scrubbedPath, { mode: 0o600 });
  // fflate calls back synchronously as data is pushed: what it produced waits here until written.
  let produced: Uint8Array[] = [];
  let producedBytes = 0;
  let finished = false;
  let failure: Error | null = null;
  const fail = (error: Error) => {
    failure ??= error;
  };

  const zip = new Zip((error, chunk, final) => {
    if (error) return fail(error);
    producedBytes += chunk.length;
    if (producedBytes > limits.maxBytes)
      return fail(new Error(`the scrubbed trace is larger than ${limits.maxBytes} bytes`));
    produced.push(chunk);
    if (final) finished = true;
  });
  const unzip = new Unzip((file) => {
    try {
      if (NETWORK_ENTRY.test(file.name)) copyScrubbed(file, zip, limits.maxNetworkBytes, fail);
      else copyAsIs(file, zip, fail);
    } catch (error) {
      fail(error as Error);
    }
  });
  unzip.register(UnzipInflate);

  const writeProduced = async () => {
    const chunks = produced;
    produced = [];
    for (const chunk of chunks) if (!output.write(chunk)) await once(output, 'drain');
  };

  try {
    for await (const chunk of createReadStream(path)) {
      unzip.push(chunk as Buffer);
      if (failure) throw failure;
      await writeProduced();
    }
    unzip.push(new Uint8Array(0), true);
    zip.end();
    if (failure) throw failure;
    if (!finished) throw new Error('the trace zip ended inside an entry');
    await writeProduced();
    output.end();
    await once(output, 'finish');
    await rename(scrubbedPath, path);
  } catch (error) {
    output.destroy();
    await rm(scrubbedPath, { force: true });
    throw error;
  }
}

/** Copies an entry through as it streams, compressed as it was. */
function copyAsIs(file: UnzipFile, zip: Zip, fail: (error: Error) => void): void {
  const copy = file.compression === 0 ? new ZipPassThrough(file.name) : new ZipDeflate(file.name, { level: 6 });
  zip.add(copy);
  file.ondata = (error, chunk, final) => {
    if (error) return fail(error);
    copy.push(chunk, final);
  };
  file.start();
}

/** Reads a network log whole (bounded), scrubs each of its JSON lines, and adds it back. */
function copyScrubbed(file: UnzipFile, zip: Zip, maxBytes: number, fail: (error: Error) => void): void {
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  file.ondata = (error, chunk, final) => {
    if (error) return fail(error);
    bytes += chunk.length;
    if (bytes > maxBytes) return fail(new Error(`the trace's ${file.name} is larger than ${maxBytes} bytes`));
    chunks.push(chunk);
    if (!final) return;
    const text = strFromU8(Buffer.concat(chunks));
    const copy = new ZipDeflate(file.name, { level: 6 });
    zip.add(copy);
    copy.push(strToU8(scrubNetworkLog(text)), true);
  };
  file.start();
}

/**
 * A network log (one JSON event per line) with each resource snapshot scrubbed. A line that does
 * not parse is dropped rather than kept as it was: what it holds cannot be checked.
 */
export function scrubNetworkLog(text: string): string {
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      continue;
    }
    if (event !== null && typeof event === 'object' && 'snapshot' in event) scrubNetworkEntry(event.snapshot);
    lines.push(JSON.stringify(event));
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}
