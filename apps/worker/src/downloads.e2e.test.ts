import { startFixtureServer, type FixtureServer } from '@botfleet/testkit';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { createE2eHarness, type E2eHarness } from './testing/e2e-harness';

/*
 * Downloads through the whole service: off by default (cancelled, logged), kept with
 * capabilities.downloads as artifacts of that run only, listed at /executions/:id/artifacts and
 * fetched through their signed URL as attachments.
 */

const PAYLOAD = `payload-${randomBytes(8).toString('hex')}`;
let h: E2eHarness;
let site: FixtureServer;
let served = 0;

beforeAll(async () => {
  site = await startFixtureServer({
    // The page shows #done once the server has sent the file, so the bot waits on the page, not a clock.
    '/': `<!doctype html><a id="get" href="/file.bin">get</a><script>
      setInterval(async () => {
        if ((await (await fetch('/served')).text()) !== '0' && !document.getElementById('done')) {
          document.body.insertAdjacentHTML('beforeend', '<p id="done">done</p>');
        }
      }, 50);
    </script>`,
    '/file.bin': (_req, res) => {
      res.writeHead(200, {
        'content-type': 'text/html',
        'content-disposition': 'attachment; filename="report.html"',
      });
      res.end(PAYLOAD, () => void served++);
    },
    '/served': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'no-store' });
      res.end(String(served));
    },
  });
  h = await createE2eHarness();
});
afterAll(async () => {
  await h.close();
  await site.close();
});

async function runDownloadBot(capabilities: object) {
  served = 0;
  const botId = await h.createBot({
    targetUrl: site.url('/'),
    manifest: { capabilities },
    steps: [
      { action: 'click', selector: '#get' },
      { action: 'waitFor', selector: '#done' },
    ],
  });
  const executionId = await h.trigger(botId);
  const execution = await h.waitForFinal(executionId, 45_000);
  expect(execution.status).toBe('completed');
  const artifacts = (await h.get(`/api/v1/executions/${executionId}/artifacts`)).body.data as {
    kind: string;
    url: string;
    bytes: number;
  }[];
  const logs = (
    (await h.get(`/api/v1/executions/${executionId}/logs`)).body.data as { level: string; message: string }[]
  ).filter((l) => /download/i.test(l.message));
  return { executionId, artifacts, logs };
}

it('cancels a download by default and says so in the run log', async () => {
  const { artifacts, logs } = await runDownloadBot({});
  expect(artifacts).toEqual([]);
  expect(logs).toEqual([
    expect.objectContaining({ level: 'warn', message: expect.stringMatching(/^Blocked a download of/) }),
  ]);
});

it('keeps a download as an artifact of its own run with capabilities.downloads', async () => {
  const kept = await runDownloadBot({ downloads: true });
  expect(kept.artifacts).toEqual([
    expect.objectContaining({ kind: 'download', contentType: 'application/octet-stream', bytes: PAYLOAD.length }),
  ]);
  const url = new URL(kept.artifacts[0]!.url);
  // The signed URL needs no key; the file comes as an attachment, never rendered as the page's HTML.
  const file = await request(h.api.app)
    .get(url.pathname + url.search)
    .buffer(true);
  expect(file.status).toBe(200);
  expect(file.headers['content-disposition']).toBe('attachment');
  expect(Buffer.from(file.body as Buffer).toString()).toBe(PAYLOAD);

  // A later run of another bot sees nothing of it.
  const later = await runDownloadBot({});
  expect(later.artifacts).toEqual([]);
});
