import { AppError } from '@botfleet/core';
import { createOps } from '@botfleet/ops';
import express, { type Express } from 'express';
import { queuesBoard } from './admin/queues-board';
import { consoleRouter } from './console/console.router';
import type { ApiDeps } from './deps';
import { docsRouter } from './docs/docs.router';
import { createAuthenticator } from './http/authenticate';
import { errorHandler } from './http/error-handler';
import { bodyLimitOf } from './http/body-limits';
import { jsonBody } from './http/json-body';
import { mountRoutes } from './http/mount-routes';
import { createRateLimiter } from './http/rate-limit';
import { observeRequest } from './http/observe-request';
import type { Route } from './http/route';
import { buildOpenApiDocument } from './openapi/build-document';
import { packageVersion } from './openapi/package-version';
import { apiKeyRoutes } from './routes/api-keys.router';
import { botRoutes } from './routes/bots.router';
import { botVersionRoutes } from './routes/bot-versions.router';
import { credentialRoutes } from './routes/credentials.router';
import { healthRouter } from './routes/health.router';
import { manifestRoutes } from './routes/manifest.router';
import { organizationRoutes } from './routes/organization.router';
import { profileRoutes } from './routes/profiles.router';
import { scheduleRoutes } from './routes/schedule.router';
import { artifactRoutes } from './routes/artifacts.router';
import { executionResultRoutes } from './routes/execution-results.router';
import { executionRoutes } from './routes/executions.router';
import { executionEventRoutes } from './routes/execution-events.router';
import { deliveryRoutes } from './routes/deliveries.router';
import { scriptRoutes } from './routes/scripts.router';
import { stepRoutes } from './routes/steps.router';
import { traceViewerRouter } from './trace-viewer/trace-viewer.router';

export const API_PREFIX = '/api/v1';

/** What routes may tell the HTTP layer (e.g. to drop a revoked key from the auth cache). */
export interface RouteHooks {
  onKeyRevoked(keyId: string): void;
}

/** Every /api/v1 endpoint, in documentation order. */
export function apiRoutes(deps: ApiDeps, hooks: RouteHooks = { onKeyRevoked: () => undefined }): Route[] {
  return [
    ...botRoutes(deps),
    ...botVersionRoutes(deps),
    ...manifestRoutes(deps),
    ...scheduleRoutes(deps),
    ...stepRoutes(deps),
    ...scriptRoutes(deps),
    // Before executionRoutes: `/executions/events` is not an execution's id.
    ...executionEventRoutes(deps),
    ...executionRoutes(deps),
    ...executionResultRoutes(deps),
    ...deliveryRoutes(deps),
    ...artifactRoutes(deps),
    ...profileRoutes(deps),
    ...credentialRoutes(deps),
    ...apiKeyRoutes(deps, hooks.onKeyRevoked),
    ...organizationRoutes(deps),
  ];
}

/**
 * The OpenAPI document of these routes, served at /api/v1/openapi.json and committed as
 * openapi.json (scripts/write-openapi.ts). Its server URL is relative, so one document fits every
 * deployment.
 */
export function apiDocument(routes: Route[]) {
  return buildOpenApiDocument(routes, { version: packageVersion(), serverUrl: API_PREFIX });
}

export function createApp(deps: ApiDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', false);
  const ops = deps.ops ?? createOps();
  const authenticator = createAuthenticator(deps.db);
  const routes = apiRoutes(deps, { onKeyRevoked: authenticator.forget });
  const openApi = apiDocument(routes);

  app.use(observeRequest(deps.logger, ops.metrics));
  app.use(healthRouter(deps, ops.readiness));
  // No /metrics here: it shows the whole fleet's load, so it is served on OPS_PORT only (packages/ops).
  app.get(`${API_PREFIX}/openapi.json`, (_req, res) => {
    res.json(openApi);
  });
  app.use(docsRouter());
  app.use(consoleRouter());
  app.use(traceViewerRouter());
  // Before the JSON body parser: the board reads its own request bodies.
  const board = queuesBoard(deps.queues, deps.settings.opsAdminToken);
  if (board) app.use(board);
  app.use(
    jsonBody({
      limitBytes: bodyLimitOf(routes, API_PREFIX, deps.settings.bodyLimitBytes),
      timeoutMs: deps.settings.requestTimeoutMs,
    }),
  );
  const checkRateLimit = createRateLimiter({
    redis: deps.redis,
    prefix: deps.queues.prefix,
    perMinute: deps.settings.rateLimitPerMinute,
    logger: deps.logger,
  });
  app.use(API_PREFIX, mountRoutes(routes, { db: deps.db, authenticate: authenticator.authenticate, checkRateLimit }));
  app.use((req, _res, next) => next(new AppError('not_found', `No route for ${req.method} ${req.path}`)));
  app.use(errorHandler(deps.logger));
  return app;
}
