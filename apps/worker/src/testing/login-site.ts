import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { totpCode, totpFromSecret, type TotpSettings } from '@botfleet/core';
import { startFixtureServer, type FixtureServer } from '@botfleet/testkit';

/*
 * A loopback site with a real login: a password form, then a TOTP second factor, then a session
 * cookie (httpOnly) that the app page requires. The app page also keeps per-browser state in
 * localStorage and IndexedDB (a visit counter) so a test can see whether a run started from the
 * previous run's saved state. The username input sits at a fixed place, so a screenshot's mask
 * over it can be checked pixel by pixel.
 */

export interface LoginSite {
  server: FixtureServer;
  origin: string;
  url(path: string): string;
  /** The only login that works. */
  readonly username: string;
  readonly password: string;
  /** The second factor's base32 secret (SHA-1, 6 digits, 30 s). */
  readonly totpSecret: string;
  /** Every session cookie value the site handed out, so tests can look for them where they must not be. */
  readonly sessionTokens: string[];
  /** Form posts received (login and code), in order. */
  formPosts(): { path: string; body: string }[];
  /** Where the username input is drawn on /login (CSS pixels at a 1280-wide viewport). */
  readonly usernameBox: { x: number; y: number; width: number; height: number };
  close(): Promise<void>;
}

const page = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title>` +
  `<style>body{margin:0;font:16px sans-serif;background:#fff}</style></head><body>${body}</body></html>`;

const USERNAME_BOX = { x: 40, y: 40, width: 320, height: 48 } as const;

function cookiesOf(req: IncomingMessage): Record<string, string> {
  const jar: Record<string, string> = {};
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name) jar[name] = value.join('=');
  }
  return jar;
}

function redirect(res: ServerResponse, location: string, cookies: string[] = []): void {
  res.writeHead(303, { location, ...(cookies.length > 0 ? { 'set-cookie': cookies } : {}) }).end();
}

/** Accepts the code of the current 30 s step or either neighbour (clock skew, a step boundary). */
function codeMatches(settings: TotpSettings, code: string): boolean {
  const now = Date.now();
  return [-30_000, 0, 30_000].some((skew) => totpCode(settings, now + skew) === code);
}

export async function startLoginSite(
  options: { username?: string; password?: string; totpSecret?: string } = {},
): Promise<LoginSite> {
  const username = options.username ?? 'alice@example.test';
  const password = options.password ?? `pw-${randomBytes(9).toString('base64url')}`;
  const totpSecret = options.totpSecret ?? 'KRUGS4ZANFZSAYJAORSXG5BAONSWG4TFOQ';
  const totp = totpFromSecret(totpSecret);
  const pending = new Set<string>();
  const sessions = new Set<string>();
  const sessionTokens: string[] = [];

  const server = await startFixtureServer({
    '/login': (req, res, body) => {
      if (req.method === 'POST') {
        const form = new URLSearchParams(body);
        if (form.get('username') !== username || form.get('password') !== password) {
          res.writeHead(401, { 'content-type': 'text/html' }).end(page('Login', '<p id="error">Wrong login</p>'));
          return;
        }
        const ticket = randomBytes(16).toString('hex');
        pending.add(ticket);
        redirect(res, '/otp', [`pending=${ticket}; Path=/; HttpOnly; SameSite=Lax`]);
        return;
      }
      const { x, y, width, height } = USERNAME_BOX;
      res.writeHead(200, { 'content-type': 'text/html' }).end(
        page(
          'Login',
          `<form method="post" action="/login">
             <input id="username" name="username" aria-label="Username" autocomplete="off"
               style="position:absolute;left:${x}px;top:${y}px;width:${width}px;height:${height}px;box-sizing:border-box;border:0;background:#fff;color:#000;font-size:24px">
             <input id="password" name="password" type="password" aria-label="Password" style="position:absolute;left:40px;top:120px">
             <button id="sign-in" style="position:absolute;left:40px;top:170px">Sign in</button>
           </form>`,
        ),
      );
    },
    '/otp': (req, res, body) => {
      const ticket = cookiesOf(req).pending;
      if (!ticket || !pending.has(ticket)) {
        redirect(res, '/login');
        return;
      }
      if (req.method === 'POST') {
        const code = new URLSearchParams(body).get('code') ?? '';
        if (!codeMatches(totp, code)) {
          res
            .writeHead(401, { 'content-type': 'text/html' })
            .end(page('Code', '<p id="error">That code is not right</p><a href="/otp">Try again</a>'));
          return;
        }
        pending.delete(ticket);
        const token = randomBytes(24).toString('hex');
        sessions.add(token);
        sessionTokens.push(token);
        redirect(res, '/app', [
          `session=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=86400`,
          'pending=; Path=/; Max-Age=0',
        ]);
        return;
      }
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          page(
            'Code',
            '<form method="post" action="/otp"><input id="code" name="code" aria-label="Code" inputmode="numeric"><button id="verify">Verify</button></form>',
          ),
        );
    },
    '/app': (req, res) => {
      const token = cookiesOf(req).session;
      if (!token || !sessions.has(token)) {
        redirect(res, '/login');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' }).end(page('App', `<h1 id="welcome">Welcome ${username}</h1>`));
    },
    // Per-browser state without a login: each visit counts up in localStorage and IndexedDB.
    '/counter': page(
      'Counter',
      `<p>Visits: <span id="visits"></span>, in IndexedDB: <span id="idb-visits"></span></p>
       <script>
         const visits = Number(localStorage.getItem('visits') || '0') + 1;
         localStorage.setItem('visits', String(visits));
         document.getElementById('visits').textContent = String(visits);
         const open = indexedDB.open('counter', 1);
         open.onupgradeneeded = () => open.result.createObjectStore('visits');
         open.onsuccess = () => {
           const store = open.result.transaction('visits', 'readwrite').objectStore('visits');
           const read = store.get('n');
           read.onsuccess = () => {
             const n = (read.result || 0) + 1;
             store.put(n, 'n').onsuccess = () => {
               const out = document.getElementById('idb-visits');
               out.textContent = String(n);
               out.id = 'idb-visits-done';
             };
           };
         };
       </script>`,
    ),
  });

  return {
    server,
    origin: server.origin,
    url: (path) => server.url(path),
    username,
    password,
    totpSecret,
    sessionTokens,
    formPosts: () =>
      server.requests
        .filter((r) => r.method === 'POST' && (r.path === '/login' || r.path === '/otp'))
        .map((r) => ({ path: r.path, body: r.body })),
    usernameBox: USERNAME_BOX,
    close: () => server.close(),
  };
}
