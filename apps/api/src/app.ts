import { AppError } from '@botfleet/core';
import express, { type Express } from 'express';
import type { ApiDeps } from './deps';
import { createAuthenticator } from './http/authenticate';
import { errorHandler } from './http/error-handler';
import { jsonBody } from './http/json-body';
import { createHttpMetrics } from './http/metrics';
import { mountRoutes } from './http/mount-routes';
import { createRateLimiter } from './http/rate-limit';
import { requestId } from './http/request-id';
import { requestLog } from './http/request-log';
import type { Route } from './http/route';
import { buildOpenApiDocument } from './openapi/build-document';
import { apiKeyRoutes } from './routes/api-keys.router';
import { botRoutes } from './routes/bots.router';
import { healthRouter } from './routes/health.router';
import { manifestRoutes } from './routes/manifest.router';
import { scheduleRoutes } from './routes/schedule.router';
import { artifactRoutes } from './routes/artifacts.router';
import { executionResultRoutes } from './routes/execution-results.router';
import { executionRoutes } from './routes/executions.router';
import { deliveryRoutes } from './routes/deliveries.router';
import { scriptRoutes } from './routes/scripts.router';
import { stepRoutes } from './routes/steps.router';

export const API_PREFIX = '/api/v1';

/** What routes may tell the HTTP layer (e.g. to drop a revoked key from the auth cache). */
export interface RouteHooks {
  onKeyRevoked(keyId: string): void;
}

/** Every /api/v1 endpoint, in documentation order. */
export function apiRoutes(deps: ApiDeps, hooks: RouteHooks = { onKeyRevoked: () => undefined }): Route[] {
  return [
    ...botRoutes(deps),
    ...manifestRoutes(deps),
    ...scheduleRoutes(deps),
    ...stepRoutes(deps),
    ...scriptRoutes(deps),
    ...executionRoutes(deps),
    ...executionResultRoutes(deps),
    ...deliveryRoutes(deps),
    ...artifactRoutes(deps),
    ...apiKeyRoutes(deps, hooks.onKeyRevoked),
  ];
}

export function createApp(deps: ApiDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', false);
  const metrics = createHttpMetrics();
  const authenticator = createAuthenticator(deps.db);
  const routes = apiRoutes(deps, { onKeyRevoked: authenticator.forget });
  const openApi = buildOpenApiDocument(routes, {
    version: '1.0.0',
    serverUrl: `${deps.settings.publicBaseUrl.replace(/\/+$/, '')}${API_PREFIX}`,
  });

  app.use(requestId);
  app.use(requestLog(deps.logger));
  app.use(metrics.middleware);
  app.use(healthRouter(deps));
  app.get('/metrics', async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  app.get(`${API_PREFIX}/openapi.json`, (_req, res) => {
    res.json(openApi);
  });
  app.use(jsonBody({ limitBytes: deps.settings.bodyLimitBytes, timeoutMs: deps.settings.requestTimeoutMs }));
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
