import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join } from 'node:path';

/*
 * The loopback site the recorder-parity suite replays recordings against. Every HTML page it
 * serves carries a small script that writes what happens on the page (clicks, inputs, keys,
 * submits, page loads, hovers and scrolls on elements marked for it) to the server, one entry at
 * a time and synchronously, so the log keeps the order the page saw. Both runners drive the
 * same pages; what the pages logged is what the suite compares.
 *
 * The site answers on two origins, `origin` (localhost) and `otherOrigin` (oopifdomain), both
 * mapped by Chromium to the loopback server (PARITY_HOST_RULES): a frame from the other is
 * cross-site, so Chromium runs it out of process (an OOPIF). The hostnames are the ones
 * @puppeteer/replay's own test pages use, so those pages are served as they are.
 */

/** Where the pages and recordings live (the repository's test/fixtures/recorder-parity). */
export const PARITY_FIXTURES_DIR = join(__dirname, '..', '..', '..', '..', '..', 'test', 'fixtures', 'recorder-parity');

/** The Chromium flag that maps both origins' hostnames to the loopback server. */
export const PARITY_HOST_RULES = '--host-rules=MAP localhost 127.0.0.1, MAP oopifdomain 127.0.0.1';

/**
 * Evaluated in a page once a replay ends: two animation frames pass, so events the last step
 * caused and the page dispatches with its next frame (scroll) have been logged.
 */
export const SETTLE_PAGE_EXPRESSION =
  'new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(true))))';

/** One thing a page saw, as its script wrote it. */
export interface PageLogEntry {
  /** `top`, or the frame's own path (frames are told apart by the page they show). */
  frame: string;
  type: string;
  [field: string]: unknown;
}

export interface ParitySite {
  readonly origin: string;
  readonly otherOrigin: string;
  /** A recording fixture, its `{{origin}}` and `{{otherOrigin}}` filled in. */
  recording(name: string): Record<string, unknown>;
  /** What the pages logged since the last reset. */
  log(): PageLogEntry[];
  reset(): void;
  close(): Promise<void>;
}

/*
 * The page's side. Runs first in every document. Elements are named by their path from the
 * document (ids where they have one, else the tag and its index), through shadow roots (`>>`),
 * so two hosts holding the same shadow content are told apart.
 */
const LOG_SCRIPT = `(() => {
  const frame = window === top ? 'top' : location.host.split(':')[0] + location.pathname;
  const send = (entry) => {
    const request = new XMLHttpRequest();
    request.open('POST', '/__parity/log', false);
    request.setRequestHeader('content-type', 'application/json');
    request.send(JSON.stringify({ frame, ...entry }));
  };
  const name = (node) => {
    const parts = [];
    for (let el = node; el && el.nodeType === 1; ) {
      const parent = el.parentNode;
      const index = parent ? Array.prototype.indexOf.call(parent.children, el) : 0;
      parts.unshift(el.tagName.toLowerCase() + (el.id ? '#' + el.id : ':' + index));
      if (parent instanceof ShadowRoot) { parts.unshift('>>'); el = parent.host; } else el = parent;
    }
    return parts.join(' ');
  };
  const target = (event) => name(event.composedPath()[0]);
  send({ type: 'load', url: location.pathname + location.search });
  const on = (type, entry) => window.addEventListener(type, (event) => { const fields = entry(event); if (fields) send({ type, ...fields }); }, true);
  on('click', (e) => ({ target: target(e), button: e.button, detail: e.detail }));
  on('dblclick', (e) => ({ target: target(e) }));
  on('auxclick', (e) => ({ target: target(e), button: e.button }));
  on('contextmenu', (e) => ({ target: target(e) }));
  const valueOf = (el) => (el.type === 'checkbox' || el.type === 'radio' ? el.checked : el.isContentEditable ? el.textContent : el.value);
  on('input', (e) => ({ target: target(e), value: valueOf(e.composedPath()[0]) }));
  on('change', (e) => ({ target: target(e), value: valueOf(e.composedPath()[0]) }));
  // Printable keys are typed text (the input entries carry it); named keys are presses.
  on('keydown', (e) => (e.key.length > 1 ? { target: target(e), key: e.key, modifiers: ['Alt', 'Control', 'Meta', 'Shift'].filter((m) => e.getModifierState(m)) } : null));
  on('submit', (e) => ({ target: target(e) }));
  // Hovers over named elements only: the way a pointer travels past others is not the recording's.
  on('pointerover', (e) => { const el = e.composedPath()[0]; return el.id || (el.hasAttribute && el.hasAttribute('data-log-hover')) ? { target: target(e) } : null; });
  on('scroll', (e) => {
    const el = e.composedPath()[0];
    const box = el === document || el === window ? document.scrollingElement : el;
    // The window's scrolling is logged only where a page asks: clicks scroll their element into
    // view, each runner to its own position. An element's own scrolling is always logged.
    const logged = box !== document.scrollingElement || box.hasAttribute('data-log-scroll');
    return logged ? { target: name(box), x: Math.round(box.scrollLeft), y: Math.round(box.scrollTop) } : null;
  });
})();`;

const CONTENT_TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript' };

/** The page with the log script as its first script (after a doctype, which must stay first). */
function withLogScript(html: string): string {
  const script = '<script src="/__parity/log.js"></script>';
  const doctype = /^\s*<!doctype[^>]*>/i.exec(html);
  return doctype ? doctype[0] + script + html.slice(doctype[0].length) : script + html;
}

/** The recording fixtures' names (known before the site starts, so a suite can make a test of each). */
export function parityRecordingNames(dir = PARITY_FIXTURES_DIR): string[] {
  return readdirSync(join(dir, 'recordings'))
    .filter((file) => file.endsWith('.json'))
    .map((file) => file.slice(0, -'.json'.length))
    .sort();
}

export async function startParitySite(dir = PARITY_FIXTURES_DIR): Promise<ParitySite> {
  const pages = join(dir, 'pages');
  let entries: PageLogEntry[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://site').pathname;
      if (path === '/__parity/log' && req.method === 'POST') {
        entries.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as PageLogEntry);
        res.writeHead(204).end();
        return;
      }
      if (path === '/__parity/log.js') {
        res.writeHead(200, { 'content-type': CONTENT_TYPES['.js']! }).end(LOG_SCRIPT);
        return;
      }
      const file = path.slice(1);
      if (!/^[\w.-]+$/.test(file) || !readdirSync(pages).includes(file)) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      const body = readFileSync(join(pages, file), 'utf8');
      const type = CONTENT_TYPES[extname(file)] ?? 'text/plain';
      res.writeHead(200, { 'content-type': type }).end(type.startsWith('text/html') ? withLogScript(body) : body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://localhost:${port}`;
  const otherOrigin = `http://oopifdomain:${port}`;
  const recordingsDir = join(dir, 'recordings');
  return {
    origin,
    otherOrigin,
    recording: (name) =>
      JSON.parse(
        readFileSync(join(recordingsDir, `${name}.json`), 'utf8')
          .replaceAll('{{origin}}', origin)
          .replaceAll('{{otherOrigin}}', otherOrigin),
      ) as Record<string, unknown>,
    log: () => entries,
    reset: () => {
      entries = [];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
