import { ARTIFACT_CONTENT_TYPES, quoteUrl, settlesWithin } from '@botfleet/core';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { BrowserContext, Download, Page } from 'playwright-core';
import { briefErrorMessage } from './error-message';
import type { RunSession } from './run-session';

/** The largest download a run keeps; a larger one is dropped with a warning. */
export const MAX_DOWNLOAD_BYTES = 16 * 1024 * 1024;
/** The most downloads one run keeps; later ones are dropped with a warning. */
export const MAX_DOWNLOADS_PER_RUN = 20;
/** How long the end of a run waits for downloads still being saved. */
const SETTLE_TIMEOUT_MS = 5_000;

export interface RunDownloads {
  /** Waits (briefly) for downloads being kept, then deletes the run's download directory. */
  close(): Promise<void>;
}

/**
 * A run's downloads. Contexts are made with `acceptDownloads` only when the bot's manifest sets
 * `capabilities.downloads: true` (buildContextOptions); otherwise Chromium cancels every
 * download and this only logs it. When kept, each download is saved into a directory of this
 * run's own (inside the browser host's private downloads directory, mode 0700), stored as a
 * `download` artifact of the run, and deleted, Playwright's temporary copy included; the
 * directory goes when the run ends. No path of one run's files is ever given to another run, and
 * the pages of a run cannot read the disk (see navigation-guard.ts).
 */
export async function handleDownloads(
  context: BrowserContext,
  options: { keep: boolean; parentDir: string; session: RunSession },
): Promise<RunDownloads> {
  const { session } = options;
  const dir = options.keep ? await mkdtemp(join(options.parentDir, 'run-')) : null;
  const pending = new Set<Promise<void>>();
  let count = 0;

  const onDownload = (download: Download) => {
    const url = quoteUrl(download.url());
    if (!dir) {
      session.log('warn', 'runner', `Blocked a download of ${url}: downloads are off (capabilities.downloads)`);
      return;
    }
    count++;
    if (count > MAX_DOWNLOADS_PER_RUN) {
      session.log('warn', 'runner', `Dropped a download of ${url}: a run keeps at most ${MAX_DOWNLOADS_PER_RUN}`);
      void download
        .cancel()
        .then(() => download.delete())
        .catch(() => undefined);
      return;
    }
    const keeping = keep(download, join(dir, `download-${count}`), url, session).finally(() => pending.delete(keeping));
    pending.add(keeping);
  };
  const watch = (page: Page) => page.on('download', onDownload);
  context.pages().forEach(watch);
  context.on('page', watch);

  return {
    async close() {
      await settlesWithin(Promise.all(pending), SETTLE_TIMEOUT_MS);
      if (dir) await rm(dir, { recursive: true, force: true });
    },
  };
}

async function keep(download: Download, path: string, url: string, session: RunSession): Promise<void> {
  try {
    const failure = await download.failure();
    if (failure !== null) {
      session.log('warn', 'runner', `Download of ${url} failed: ${failure}`);
      return;
    }
    await download.saveAs(path);
    const { size } = await stat(path);
    if (size > MAX_DOWNLOAD_BYTES) {
      session.log('warn', 'runner', `Dropped a download of ${url}: ${size} bytes, more than ${MAX_DOWNLOAD_BYTES}`);
      return;
    }
    const id = await session.saveArtifact('download', ARTIFACT_CONTENT_TYPES.download, { path });
    session.log('info', 'runner', `Kept a download of ${url} (${size} bytes) as artifact ${id}`);
  } catch (error) {
    session.log('warn', 'runner', `Could not keep a download of ${url}: ${briefErrorMessage(error)}`);
  } finally {
    await download.delete().catch(() => undefined);
    await rm(path, { force: true }).catch(() => undefined);
  }
}
