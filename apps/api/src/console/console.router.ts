import express, { Router } from 'express';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const CONSOLE_PATH = '/console';

/**
 * The console's built files (Vite's output in apps/console/dist), found through the package so no
 * path is hard-coded. The set-up (scripts/setup.mjs) builds them; null when the package is absent.
 */
export function consoleBuildDir(): string | null {
  try {
    return join(dirname(require.resolve('@botfleet/console/package.json')), 'dist');
  } catch {
    return null;
  }
}

/**
 * Same origin only: the console calls /api/v1 and loads its own assets, the failure screenshots
 * included (artifact URLs are used as same-origin paths), and may not be framed.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>botfleet console</title></head>
<body><main><h1>The console is not built</h1><p>Run <code>npm start</code> (its set-up builds it) or
<code>node scripts/setup.mjs</code>'s console step, then reload.</p></main></body></html>`;

/**
 * GET /console and below: the console (a single-page app). Hashed assets are cached for a year;
 * every other path under /console answers index.html, so a link to a bot or a run opens it.
 */
export function consoleRouter(dir: string | null = consoleBuildDir()): Router {
  const router = Router();
  router.use(CONSOLE_PATH, (_req, res, next) => {
    res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'same-origin');
    next();
  });
  if (dir) {
    // serve-static looks for the file on each request, so a console built after start is served.
    router.use(
      `${CONSOLE_PATH}/assets`,
      express.static(join(dir, 'assets'), { immutable: true, maxAge: '365d', index: false }),
    );
  }
  router.get(`${CONSOLE_PATH}/assets/*path`, (_req, res) => {
    res.status(404).type('text/plain').send('Not found');
  });
  router.get([CONSOLE_PATH, `${CONSOLE_PATH}/*path`], (_req, res, next) => {
    const index = dir ? join(dir, 'index.html') : null;
    if (!index || !existsSync(index)) {
      res.status(503).type('html').send(NOT_BUILT);
      return;
    }
    // The page names the current assets; it must be fetched again after a deploy.
    res.sendFile(index, { headers: { 'Cache-Control': 'no-cache' } }, (err) => {
      if (err) next(err);
    });
  });
  return router;
}
