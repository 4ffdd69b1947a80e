import type { Logger } from '@botfleet/core';
import type { FleetMetrics } from '@botfleet/ops';
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

const CLIENT_ID = /^[A-Za-z0-9._:-]{1,128}$/;

declare module 'express-serve-static-core' {
  interface Request {
    id: string;
  }
}

/**
 * What every request gets from the HTTP layer: an X-Request-Id (a well-formed one from the client
 * is echoed), one structured log line, and the Prometheus counters. One middleware and one
 * 'finish' listener for all three: this runs on every request, so its cost is the API's floor.
 * The log line never holds the query string's secrets or any header value; the route pattern
 * (not the URL) labels the metrics, so label sets stay small.
 */
export function observeRequest(logger: Logger, metrics: Pick<FleetMetrics, 'httpRequests' | 'httpRequestDuration'>) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const start = process.hrtime.bigint();
    const given = req.headers['x-request-id'];
    req.id = typeof given === 'string' && CLIENT_ID.test(given) ? given : randomUUID();
    res.setHeader('X-Request-Id', req.id);
    res.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const status = res.statusCode;
      const labels = {
        method: req.method,
        route: (req.route as { path?: string } | undefined)?.path ?? 'unmatched',
        status: String(status),
      };
      metrics.httpRequests.inc(labels);
      metrics.httpRequestDuration.observe(labels, seconds);
      const level = status >= 500 ? 'error' : status >= 400 ? 'info' : 'debug';
      if (!logger.isLevelEnabled(level)) return;
      logger[level](
        {
          requestId: req.id,
          method: req.method,
          path: req.path,
          status,
          durationMs: Math.round(seconds * 10_000) / 10,
        },
        'request',
      );
    });
    next();
  };
}
