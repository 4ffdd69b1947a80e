import { CREDENTIAL_ORIGIN_MISMATCH, indexSteps, type StepInput, type StorageState } from '@botfleet/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Page } from 'playwright-core';
import { runExecution, type RunExecutionOptions } from './run-execution';
import { REDACTED, type CredentialSource } from './run-secrets';
import { runSandboxedScript } from './sandbox';
import { runSteps } from './step-interpreter';
import {
  createMemorySession,
  fixedCredentials,
  MASK_COLOUR,
  pngColoursIn,
  useBrowserFixture,
  type MemorySession,
  type PixelBox,
} from './testing';

/*
 * The hostile side of credentials and screenshots (docs/security.md), in real Chromium against
 * loopback pages: a page at another origin than the credential's (here `localhost` against the
 * credential's `127.0.0.1`: one port, two origins), in the main frame or a child frame, gets no
 * character of it, and a page allowed to get it that shows it elsewhere has every such element
 * masked in the step and failure screenshots.
 */

const SECRET = 'Tr0ub4dor&3-staple';
const PIN = '8841-2290';

/** Records every key and input event on #pw and reports each value to the server. */
const ECHO_PAGE = `<!doctype html><title>Echo</title><input id="pw" aria-label="pw">
  <script>
    window.received = [];
    const pw = document.getElementById('pw');
    for (const type of ['keydown', 'beforeinput', 'input', 'change']) {
      pw.addEventListener(type, () => {
        window.received.push(type);
        fetch('/leak?v=' + encodeURIComponent(pw.value));
      });
    }
  </script>`;

const box = (x: number, y: number): PixelBox => ({ x, y, width: 320, height: 48 });
const SHOWN = box(40, 120);
const ATTR = box(40, 200);
const IN_FRAME = box(40, 300);
const COOKIES = box(40, 40);
const AT = (b: PixelBox) =>
  `position:absolute;left:${b.x}px;top:${b.y}px;width:${b.width}px;height:${b.height}px;margin:0;` +
  'box-sizing:border-box;border:0;font-size:24px;color:#000;background:#fff;overflow:hidden;white-space:nowrap';

/** An allowed page that shows what is typed into #pw three more ways: split text, an attribute via CSS, a child frame. */
const SHOWS_PAGE = `<!doctype html><title>Shows</title><style>body{margin:0;background:#fff}#attr::after{content:attr(data-v)}</style>
  <input id="pw" aria-label="pw" style="${AT(box(40, 40))}">
  <p id="shown" style="${AT(SHOWN)}"></p>
  <div id="attr" data-v="" style="${AT(ATTR)}"></div>
  <iframe id="inner" src="/shows-frame" style="${AT(IN_FRAME)}"></iframe>
  <script>
    document.getElementById('pw').addEventListener('input', (e) => {
      const v = e.target.value;
      document.getElementById('shown').innerHTML = 'pw=' + v.slice(0, 5) + '<b>' + v.slice(5) + '</b>';
      document.getElementById('attr').dataset.v = 'pw=' + v;
      document.getElementById('inner').contentDocument.getElementById('echo').textContent = 'pw=' + v;
    });
  </script>`;

/** A page that frames the echo page from the other origin (same port, `localhost`). */
function framingPage(req: IncomingMessage, res: ServerResponse): void {
  const port = req.socket.localPort ?? 0;
  res
    .writeHead(200, { 'content-type': 'text/html' })
    .end(`<!doctype html><title>Framing</title><iframe src="http://localhost:${port}/echo"></iframe>`);
}

describe('credential origins and secret masks', () => {
  const fixture = useBrowserFixture({
    routes: {
      '/echo': ECHO_PAGE,
      '/framing': framingPage,
      '/shows': SHOWS_PAGE,
      '/shows-frame': `<!doctype html><style>body{margin:0;background:#fff}</style><p id="echo" style="${AT(box(0, 0))}"></p>`,
      '/prefs': `<!doctype html><title>Prefs</title><style>body{margin:0;background:#fff}</style>
        <p id="cookies" style="${AT(COOKIES)}"></p><p id="lang" style="${AT(box(40, 120))}"></p>
        <script>
          const jar = Object.fromEntries(document.cookie.split('; ').map((c) => c.split('=')));
          document.getElementById('cookies').textContent = 'pin=' + jar.pin;
          document.getElementById('lang').textContent = 'lang=' + jar.lang;
        </script>`,
    },
  });
  const otherOrigin = () => `http://localhost:${fixture.server.port}`;

  /** The fixture's credential, allowed on `origins`; counts how often its value was opened. */
  function credential(origins: readonly string[]) {
    const opened = { count: 0 };
    const inner = fixedCredentials({ password: SECRET, username: 'alice' }, origins);
    const source: CredentialSource = async (value) => {
      const found = await inner(value);
      return { origins: found.origins, reveal: () => ((opened.count += 1), found.reveal()) };
    };
    return { source, opened };
  }

  /** Runs `steps` at `url`; `received` is what every frame's #pw got, read as the program ends. */
  async function run(
    url: string,
    steps: StepInput[],
    options: Partial<RunExecutionOptions> & { source?: CredentialSource },
  ) {
    const session: MemorySession = createMemorySession(options.source ? { credentials: options.source } : {});
    const received: { events: string[]; value: string }[] = [];
    const outcome = await runExecution({
      browserHost: fixture.host,
      targetUrl: url,
      capabilities: { resolution: { width: 800, height: 600 } },
      timeoutMs: 20_000,
      session,
      program: async (page: Page, s) => {
        try {
          return await runSteps(page, indexSteps(steps), s);
        } finally {
          for (const frame of page.frames()) {
            received.push(
              await frame.evaluate(() => {
                const own = window as unknown as { received?: string[] };
                const input = document.getElementById('pw') as HTMLInputElement | null;
                return { events: own.received ?? [], value: input?.value ?? '' };
              }),
            );
          }
        }
      },
      ...options,
    });
    return { session, outcome, received };
  }

  const leaks = () => fixture.server.requests.filter((r) => r.path.startsWith('/leak'));

  it.each([false, true])(
    'refuses to fill a page at another origin before a character goes in (keystrokes: %s)',
    async (keystrokes) => {
      const { source, opened } = credential([fixture.server.origin]);
      const leaksBefore = leaks().length;
      const { session, outcome, received } = await run(
        `${otherOrigin()}/echo`,
        [{ action: 'fill', selector: '#pw', keystrokes, value: { credential: 'crd_x', field: 'password' } }],
        { source },
      );
      expect(outcome.status).toBe('failed');
      const error = outcome.status === 'failed' ? outcome.error : '';
      expect(error).toContain(`${CREDENTIAL_ORIGIN_MISMATCH}: credential crd_x fills only on ${fixture.server.origin}`);
      expect(error).toContain(`the field is in a frame at ${otherOrigin()}`);
      expect(session.steps[0]).toMatchObject({
        status: 'failed',
        error: expect.stringContaining(CREDENTIAL_ORIGIN_MISMATCH),
      });
      expect(received).toEqual([{ events: [], value: '' }]);
      expect(opened.count).toBe(0);
      expect(leaks().length).toBe(leaksBefore);
    },
  );

  it('refuses a child frame at another origin, and one inside a page at another origin, and fills once both are allowed', async () => {
    const fill: StepInput = {
      action: 'fill',
      selector: '#pw',
      frame: [0],
      value: { credential: 'crd_x', field: 'password' },
    };
    const refused = credential([fixture.server.origin]);
    const first = await run(fixture.server.url('/framing'), [fill], { source: refused.source });
    expect(first.outcome.status === 'failed' && first.outcome.error).toContain(
      `the field is in a frame at ${otherOrigin()}`,
    );
    expect(first.received.map((frame) => frame.value)).toEqual(['', '']);
    expect(first.received[1]?.events).toEqual([]);
    expect(refused.opened.count).toBe(0);

    // The login's own origin is not enough: the page framing it could navigate the frame or take
    // the focus between the check and the last keystroke.
    const framed = credential([otherOrigin()]);
    const second = await run(fixture.server.url('/framing'), [fill], { source: framed.source });
    expect(second.outcome.status === 'failed' && second.outcome.error).toContain(
      `the field's frame is inside a frame at ${fixture.server.origin}`,
    );
    expect(second.received[1]?.events).toEqual([]);
    expect(framed.opened.count).toBe(0);

    const allowed = credential([otherOrigin(), fixture.server.origin]);
    const third = await run(fixture.server.url('/framing'), [fill], { source: allowed.source });
    expect(third.outcome.status).toBe('completed');
    expect(third.received[1]?.value).toBe(SECRET);
  });

  it('refuses every fill from a credential without origins, saying to set them', async () => {
    const { source, opened } = credential([]);
    const { outcome, received } = await run(
      fixture.server.url('/echo'),
      [{ action: 'fill', selector: '#pw', value: { credential: 'crd_old', field: 'username' } }],
      { source },
    );
    expect(outcome.status === 'failed' && outcome.error).toContain(
      `${CREDENTIAL_ORIGIN_MISMATCH}: credential crd_old has no origins`,
    );
    expect(received).toEqual([{ events: [], value: '' }]);
    expect(opened.count).toBe(0);
  });

  it('masks every element that shows the secret in the step and failure screenshots, child frames included', async () => {
    const { source } = credential([fixture.server.origin]);
    const { session, outcome } = await run(
      fixture.server.url('/shows'),
      [
        { action: 'fill', selector: '#pw', value: { credential: 'crd_x', field: 'password' } },
        { action: 'screenshot' },
        { action: 'extract', name: 'shown', selector: '#shown' },
        { action: 'waitFor', selector: '#never', timeout: 300 },
      ],
      { source },
    );
    expect(outcome.status).toBe('failed');
    expect(session.steps[2]?.data).toBe(`pw=${REDACTED}`);
    const step = [...session.artifacts.values()].find((artifact) => artifact.kind === 'screenshot')?.data;
    const failure = outcome.status === 'failed' ? outcome.screenshot : null;
    for (const png of [step, failure]) {
      expect(png).toBeInstanceOf(Buffer);
      for (const where of [SHOWN, ATTR, IN_FRAME]) {
        expect(await pngColoursIn(fixture.host, png!, where)).toEqual([MASK_COLOUR]);
      }
    }
  });

  it('treats profile values of 8 characters or more as secrets: redacted from extracts, masked on screen', async () => {
    const cookie = (name: string, value: string) => ({
      name,
      value,
      domain: '127.0.0.1',
      path: '/',
      expires: -1,
      httpOnly: false,
      secure: false,
      sameSite: 'Lax' as const,
    });
    const initial: StorageState = { cookies: [cookie('pin', PIN), cookie('lang', 'en-US')], origins: [] };
    const { session, outcome } = await run(
      fixture.server.url('/prefs'),
      [
        { action: 'extract', name: 'pin', selector: '#cookies' },
        { action: 'extract', name: 'lang', selector: '#lang' },
        { action: 'screenshot' },
      ],
      { browserState: { initial } },
    );
    expect(outcome).toEqual({ status: 'completed', data: { pin: `pin=${REDACTED}`, lang: 'lang=en-US' } });
    const png = [...session.artifacts.values()].find((artifact) => artifact.kind === 'screenshot')?.data;
    expect(await pngColoursIn(fixture.host, png!, COOKIES)).toEqual([MASK_COLOUR]);
    expect(await pngColoursIn(fixture.host, png!, box(40, 120))).not.toEqual([MASK_COLOUR]);

    // A handwritten script's page.screenshot is masked the same way.
    const scripted = await run(fixture.server.url('/prefs'), [], {
      browserState: { initial },
      program: (page: Page, s) =>
        runSandboxedScript({
          source: `export default async ({ page }) => page.screenshot()`,
          page,
          session: s,
          timeoutMs: 15_000,
        }),
    });
    expect(scripted.outcome.status).toBe('completed');
    const scriptPng = [...scripted.session.artifacts.values()][0]?.data;
    expect(await pngColoursIn(fixture.host, scriptPng!, COOKIES)).toEqual([MASK_COLOUR]);
  });
});
