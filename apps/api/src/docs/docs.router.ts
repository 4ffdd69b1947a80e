import { Router } from 'express';
import { dirname, join } from 'node:path';

export const DOCS_PATH = '/docs';

/** Scalar's standalone browser bundle, found through the package so no path is hard-coded. */
function scalarBundlePath(): string {
  // The package's main entry is dist/index.js; the browser bundle sits beside it.
  return join(dirname(require.resolve('@scalar/api-reference')), 'browser', 'standalone.js');
}

/**
 * Scalar's options: the document this API serves, and every feature that would call a third party
 * off (fonts from its CDN, telemetry, its request proxy, the agent and MCP integrations), so the
 * page works on a machine with no Internet access and tells no one who reads it.
 */
const SCALAR_CONFIG = {
  url: '/api/v1/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  proxyUrl: '',
  agent: { disabled: true },
  mcp: { disabled: true },
  hideClientButton: true,
  showDeveloperTools: 'never',
  defaultHttpClient: { targetKey: 'shell', clientKey: 'curl' },
};

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>botfleet API reference</title>
  </head>
  <body>
    <div id="app"></div>
    <script src="${DOCS_PATH}/scalar.js"></script>
    <script src="${DOCS_PATH}/init.js"></script>
  </body>
</html>
`;

const INIT = `Scalar.createApiReference('#app', ${JSON.stringify(SCALAR_CONFIG)});\n`;

/**
 * The browser may fetch from this origin only: a second guard, after the options above, that the
 * reference page never loads anything from a CDN nor sends anything elsewhere.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** GET /docs: the API reference (Scalar), every asset served by botfleet itself. */
export function docsRouter(): Router {
  const router = Router();
  const bundle = scalarBundlePath();
  router.use(DOCS_PATH, (_req, res, next) => {
    res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    next();
  });
  router.get(DOCS_PATH, (_req, res) => {
    res.type('html').send(PAGE);
  });
  router.get(`${DOCS_PATH}/init.js`, (_req, res) => {
    res.type('text/javascript').send(INIT);
  });
  router.get(`${DOCS_PATH}/scalar.js`, (_req, res, next) => {
    res.sendFile(bundle, { maxAge: '1h', headers: { 'Content-Type': 'text/javascript; charset=utf-8' } }, (err) => {
      if (err) next(err);
    });
  });
  return router;
}
