import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import express, { Router } from 'express';

export const TRACE_VIEWER_PATH = '/trace-viewer';

/**
 * Playwright's trace viewer as the installed playwright-core ships it (index.html, its service
 * worker sw.bundle.js, hashed assets), found through the package so the viewer always matches the
 * Playwright that recorded the traces.
 */
export function traceViewerDir(): string {
  return join(dirname(require.resolve('playwright-core/package.json')), 'lib', 'vite', 'traceViewer');
}

/** The CSP source of every inline script of a page (index.html shows a notice when opened from a file). */
function inlineScriptHashes(html: string): string[] {
  return [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(
    ([, body]) => `'sha256-${createHash('sha256').update(body!).digest('base64')}'`,
  );
}

/**
 * This origin only. The viewer's service worker (scope /trace-viewer/) fetches the trace named by
 * `?trace=` (connect-src 'self': only a same-origin artifact URL loads) and answers the snapshot
 * frames' requests from the trace itself, so a recorded page's own URLs never reach the network.
 * The viewer styles with inline styles, shows screenshots as data: and blob: URLs, and frames its
 * snapshots under its own path (sandboxed by the viewer itself).
 */
function contentSecurityPolicy(inlineScripts: string[]): string {
  return [
    "default-src 'self'",
    ["script-src 'self'", ...inlineScripts].join(' '),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self'",
    // The viewer shows an empty snapshot as a data: document of its own.
    "frame-src 'self' data:",
    "manifest-src 'self'",
    "object-src 'none'",
    "frame-ancestors 'self'",
    "base-uri 'self'",
    "form-action 'none'",
  ].join('; ');
}

/**
 * GET /trace-viewer/ and below (the worker's scope is the directory of sw.bundle.js, so it needs
 * no Service-Worker-Allowed header): the trace viewer; `/trace-viewer/?trace=<signed artifact URL>`
 * opens a run's trace. index.html and the worker have no hash in their names, so every file is
 * revalidated (they change only with an upgrade of playwright-core).
 */
export function traceViewerRouter(dir: string = traceViewerDir()): Router {
  const router = Router();
  const policy = contentSecurityPolicy(inlineScriptHashes(readFileSync(join(dir, 'index.html'), 'utf8')));
  router.use(TRACE_VIEWER_PATH, (_req, res, next) => {
    res.setHeader('Content-Security-Policy', policy);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // The page's URL holds a signed artifact URL: it is sent to no one.
    res.setHeader('Referrer-Policy', 'no-referrer');
    next();
  });
  router.use(TRACE_VIEWER_PATH, express.static(dir, { index: 'index.html', maxAge: 0 }));
  return router;
}
