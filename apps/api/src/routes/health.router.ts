import { withTimeout } from '@botfleet/core';
import { pingDatabase } from '@botfleet/db';
import { Router } from 'express';
import type { ApiDeps } from '../deps';
import { sendError } from '../http/error-handler';

/** Liveness (the process answers) and readiness (its database and Redis answer too). */
export function healthRouter({ db, redis }: ApiDeps): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const checks = await Promise.allSettled([
      withTimeout(pingDatabase(db), 2_000, 'database did not answer'),
      withTimeout(redis.ping(), 2_000, 'redis did not answer'),
    ]);
    const [database, queue] = checks.map((c) => (c.status === 'fulfilled' ? 'ok' : 'down'));
    if (database === 'ok' && queue === 'ok') {
      res.json({ status: 'ok', checks: { database, redis: queue } });
    } else {
      sendError(res, 'unavailable', 'Not ready', { database, redis: queue });
    }
  });
  return router;
}
