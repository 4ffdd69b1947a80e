import { indexSteps, type Capabilities, type RunOutcome, type StepInput } from '@botfleet/core';
import { waitUntil } from '@botfleet/testkit';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { generateScript } from './codegen';
import { runExecution, type ExecutionProgram } from './run-execution';
import { runSandboxedScript } from './sandbox';
import { runSteps } from './step-interpreter';
import { createMemorySession, useBrowserFixture, type MemorySession } from './testing';

/*
 * What a run's browser may reach, tried from the hostile side against real Chromium: every URL a
 * run opens is refused unless it is http(s) (url_not_allowed), pages cannot take a frame or popup
 * to another scheme, and downloads are cancelled unless the manifest keeps them, in a directory
 * of the run's own. A real file with a secret token stands for the machine's credentials.
 */

const SECRET = `botfleet-secret-${randomBytes(12).toString('hex')}`;
const DOWNLOAD_PAYLOAD = `download-payload-${randomBytes(12).toString('hex')}`;
let secretDir: string;
let secretFile: string;

beforeAll(async () => {
  secretDir = await mkdtemp(join(tmpdir(), 'botfleet-boundaries-'));
  secretFile = join(secretDir, 'token.txt');
  await writeFile(secretFile, `${SECRET}\n`);
});
afterAll(async () => {
  await rm(secretDir, { recursive: true, force: true });
});

const page = (body: string) => `<!doctype html><html><body>${body}</body></html>`;

const fixture = useBrowserFixture({
  routes: {
    '/': page('<h1 id="title">Home</h1>'),
    '/download': page('<a id="get" href="/file.bin">get</a>'),
    '/file.bin': (_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-disposition': 'attachment; filename="file.bin"',
      });
      res.end(DOWNLOAD_PAYLOAD);
    },
    '/frames-ok': page(
      '<iframe id="a" srcdoc="<p>inline</p>"></iframe><iframe id="b" src="about:blank"></iframe><iframe id="c" src="/"></iframe>' +
        // A load that fails shows Chromium's error page: not the page's doing, no warning.
        '<iframe id="d" src="http://127.0.0.1:1/"></iframe>',
    ),
  },
});

/** The URLs a run must never open, by scheme (made once the files and server exist). */
const REFUSED_URLS: Record<string, () => string> = {
  'file:': () => `file://${secretFile}`,
  'file: directory': () => `file://${secretDir}/`,
  'chrome:': () => 'chrome://version',
  'view-source:': () => `view-source:file://${secretFile}`,
  'data:': () => 'data:text/html,<p>from a data URL</p>',
  'javascript:': () => 'javascript:document.body.innerText',
  'blob:': () => `blob:${fixture.server.url('/')}${randomUUID()}`,
};

function run(
  overrides: {
    session?: MemorySession;
    targetUrl?: string;
    capabilities?: Capabilities;
    program?: ExecutionProgram;
  } = {},
): Promise<RunOutcome> {
  return runExecution({
    browserHost: fixture.host,
    targetUrl: fixture.server.url('/'),
    capabilities: {},
    timeoutMs: 20_000,
    session: createMemorySession(),
    program: async () => null,
    ...overrides,
  });
}

const steps =
  (...input: StepInput[]): ExecutionProgram =>
  (p: Page, session) =>
    runSteps(p, indexSteps(input), session);

const script =
  (source: string): ExecutionProgram =>
  (p: Page, session) =>
    runSandboxedScript({ source, page: p, session, timeoutMs: 15_000 });

/** Everything a run left behind, as one string, to search for the secret. */
function everything(outcome: RunOutcome, session: MemorySession): string {
  return JSON.stringify({
    outcome: { ...outcome, screenshot: null },
    steps: session.steps,
    logs: session.logs,
    artifacts: [...session.artifacts.values()].map((a) => a.data.toString('latin1')),
  });
}

async function downloadsDirEntries(): Promise<string[]> {
  const lease = await fixture.host.acquire();
  try {
    return await readdir(lease.downloadsDir);
  } finally {
    lease.release();
  }
}

describe('URLs a run opens', () => {
  it.each(Object.keys(REFUSED_URLS))('refuses a %s URL in every way a run opens one', async (label) => {
    const url = REFUSED_URLS[label]!();
    const extract: StepInput = { action: 'extract', name: 'body', selector: 'body' };
    const programs: [string, ExecutionProgram, Record<string, unknown>][] = [
      ['a stored goto step', steps({ action: 'goto', url }, extract), {}],
      ['a templated goto step', steps({ action: 'goto', url: '{{params.target}}' }, extract), { target: url }],
      [
        'a script',
        script(
          `export default async ({ page, step }) => { await step('open', () => page.goto(${JSON.stringify(url)})); return page.content(); }`,
        ),
        {},
      ],
      ['the generated script', script(generateScript(indexSteps([{ action: 'goto', url }, extract]))), {}],
    ];
    for (const [how, program, params] of programs) {
      const session = createMemorySession({ params });
      const outcome = await run({ session, program });
      expect({ how, status: outcome.status }).toEqual({ how, status: 'failed' });
      expect(outcome.status === 'failed' && outcome.error).toContain('url_not_allowed');
      expect(session.steps[0]?.error).toContain('url_not_allowed');
      expect(everything(outcome, session)).not.toContain(SECRET);
      // A script's page.goto (the generated script's too) logs the refusal as every blocked navigation is.
      if (how.endsWith('script')) {
        const scheme = label.split(' ')[0]!;
        expect({ how, warned: session.logs.filter((l) => l.level === 'warn').map((l) => l.message) }).toEqual({
          how,
          warned: [
            expect.stringMatching(new RegExp(`^Blocked a page from opening a ${scheme} URL .*refused before loading`)),
          ],
        });
      }
    }

    const session = createMemorySession();
    const outcome = await run({ session, targetUrl: url, program: steps(extract) });
    expect(outcome).toMatchObject({ status: 'failed', error: expect.stringMatching(/^url_not_allowed: /) });
    expect(session.steps).toEqual([]);
    expect(everything(outcome, session)).not.toContain(SECRET);
  });

  it('still opens http(s) pages, relative URLs and about:blank', async () => {
    const session = createMemorySession();
    const outcome = await run({
      session,
      program: steps(
        { action: 'goto', url: 'about:blank' },
        { action: 'goto', url: fixture.server.url('/frames-ok') },
        { action: 'goto', url: '/' },
        { action: 'extract', name: 'title', selector: '#title' },
      ),
    });
    expect(outcome).toEqual({ status: 'completed', data: { title: 'Home' } });
  });
});

describe('pages that navigate themselves', () => {
  /**
   * Serves `body` at a fresh path and runs a bot on it until the guard has logged a block (when
   * `blocked` is given) and every frame is on a web document; returns the text of every frame.
   */
  async function hostilePage(body: string, blocked: RegExp | null) {
    const path = `/hostile-${randomUUID()}`;
    fixture.server.setRoute(path, page(body));
    const session = createMemorySession();
    const outcome = await run({
      session,
      targetUrl: fixture.server.url(path),
      program: async (p) => {
        if (blocked) {
          await waitUntil(() => session.logs.some((l) => l.level === 'warn' && blocked.test(l.message)), {
            timeoutMs: 15_000,
            message: `a warn log matching ${blocked}`,
          });
        }
        // Whatever the page tried, no frame of any page of the run shows anything but the web.
        await waitUntil(
          () =>
            p
              .context()
              .pages()
              .every((each) => each.frames().every((f) => isWeb(f.url()))),
          {
            timeoutMs: 15_000,
            message: 'every frame back on a web document',
          },
        );
        // A frame whose load Chromium refused never got a document (its URL stays empty).
        const frames = p
          .context()
          .pages()
          .flatMap((each) => each.frames())
          .filter((f) => f.url() !== '');
        return { texts: await Promise.all(frames.map((f) => f.evaluate(() => document.body?.innerText ?? ''))) };
      },
    });
    expect(outcome.status).toBe('completed');
    expect(everything(outcome, session)).not.toContain(SECRET);
    return { session, outcome };
  }

  const isWeb = (url: string) => url === '' || /^(https?:|about:blank$|about:srcdoc$)/.test(url);
  const fileUrl = () => `file://${secretFile}`;

  it.each([
    ['location = file:', () => `<script>setTimeout(() => { location = '${fileUrl()}'; }, 50)</script>`, /file: URL/],
    [
      'a link to file:',
      () => `<a id="l" href="${fileUrl()}">x</a><script>setTimeout(() => l.click(), 50)</script>`,
      /file: URL/,
    ],
    ['window.open(view-source:)', () => `<script>window.open('view-source:${fileUrl()}')</script>`, /view-source: URL/],
    [
      'location = chrome:',
      () => `<script>setTimeout(() => { location = 'chrome://version'; }, 50)</script>`,
      /chrome: URL/,
    ],
    [
      'location = data:',
      () => `<script>setTimeout(() => { location = 'data:text/html,<p>x</p>'; }, 50)</script>`,
      /data: URL/,
    ],
    ['an iframe src=file:', () => `<iframe src="${fileUrl()}"></iframe>`, /file: URL/],
    ['an iframe src=chrome:', () => '<iframe src="chrome://version"></iframe>', /chrome: URL/],
    ['an iframe src=data:', () => '<iframe src="data:text/html,<p id=d>data frame</p>"></iframe>', /data: URL/],
    [
      'an iframe showing a blob:',
      () =>
        `<script>const f = document.createElement('iframe'); f.src = URL.createObjectURL(new Blob(['<p>blob frame</p>'], { type: 'text/html' })); document.body.appendChild(f);</script>`,
      /blob: URL/,
    ],
    [
      'location = blob:',
      () =>
        `<script>setTimeout(() => { location = URL.createObjectURL(new Blob(['<p>blob page</p>'], { type: 'text/html' })); }, 50)</script>`,
      /blob: URL/,
    ],
    [
      'a popup taken to data:',
      () =>
        `<script>const w = window.open('about:blank'); setTimeout(() => { w.location = 'data:text/html,<p>popup data</p>'; }, 200);</script>`,
      /data: URL/,
    ],
  ])('%s is stopped and logged as a warning', async (_label, body, blocked) => {
    const { outcome } = await hostilePage(body(), blocked);
    const texts = outcome.status === 'completed' ? (outcome.data as { texts: string[] }).texts.join('') : '';
    expect(texts).not.toMatch(/data frame|blob frame|blob page|popup data/);
  });

  it('a popup taken to data: before it is even attached stays blank', async () => {
    // Chromium refuses these too, but reports it before the run can listen to the new popup (or,
    // for the second window.open, its popup blocker drops it): blocked, though nothing is logged.
    const { outcome } = await hostilePage(
      `<script>const w = window.open('about:blank'); w.location = 'data:text/html,<p>popup data</p>'; window.open('data:text/html,<p>popup data</p>');</script>`,
      null,
    );
    const texts = outcome.status === 'completed' ? (outcome.data as { texts: string[] }).texts.join('') : '';
    expect(texts).not.toContain('popup data');
  });

  it('leaves srcdoc, about:blank and http frames alone, without a warning', async () => {
    const session = createMemorySession();
    const outcome = await run({
      session,
      targetUrl: fixture.server.url('/frames-ok'),
      // The target URL is open once its load event fired, which waits for its frames.
      program: async (p) => p.frames().map((f) => f.url()),
    });
    expect(outcome).toMatchObject({
      status: 'completed',
      data: expect.arrayContaining([
        'about:srcdoc',
        'about:blank',
        fixture.server.url('/'),
        'chrome-error://chromewebdata/',
      ]),
    });
    expect(session.logs.filter((l) => l.level === 'warn')).toEqual([]);
  });
});

describe('downloads', () => {
  const clickDownload = (session: MemorySession, logged: RegExp): ExecutionProgram => {
    return async (p) => {
      await p.click('#get');
      await waitUntil(() => session.logs.some((l) => logged.test(l.message)), {
        timeoutMs: 15_000,
        message: `a log matching ${logged}`,
      });
      return null;
    };
  };

  it('are cancelled and logged by default', async () => {
    const session = createMemorySession();
    const outcome = await run({
      session,
      targetUrl: fixture.server.url('/download'),
      program: clickDownload(session, /Blocked a download/),
    });
    expect(outcome.status).toBe('completed');
    const warning = session.logs.find((l) => /Blocked a download/.test(l.message));
    expect(warning).toMatchObject({ level: 'warn', message: expect.stringContaining('/file.bin') });
    expect(session.artifacts.size).toBe(0);
    // Nothing of it on the disk: not in the browser's downloads directory, not anywhere shared.
    expect(await downloadsDirEntries()).toEqual([]);
  });

  it('are kept as artifacts of the run with capabilities.downloads, and their files deleted', async () => {
    const session = createMemorySession();
    const outcome = await run({
      session,
      capabilities: { downloads: true },
      targetUrl: fixture.server.url('/download'),
      program: clickDownload(session, /Kept a download/),
    });
    expect(outcome.status).toBe('completed');
    const kept = [...session.artifacts.values()];
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({ kind: 'download', contentType: 'application/octet-stream' });
    expect(kept[0]!.data.toString()).toBe(DOWNLOAD_PAYLOAD);
    // The run's directory and Playwright's temporary copy are gone once the run ended.
    expect(await downloadsDirEntries()).toEqual([]);
  });

  it('happen in a directory private to the process, not in the shared temporary directory', async () => {
    const lease = await fixture.host.acquire();
    try {
      expect(lease.downloadsDir).toContain('botfleet-downloads-');
      const { mode } = await import('node:fs/promises').then((fs) => fs.stat(lease.downloadsDir));
      expect(mode & 0o777).toBe(0o700);
    } finally {
      lease.release();
    }
  });
});
