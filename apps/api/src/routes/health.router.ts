import { pingDatabase } from '@botfleet/db';
import type { Readiness } from '@botfleet/ops';
import { redisReady } from '@botfleet/queue';
import { Router } from 'express';
import type { ApiDeps } from '../deps';
import { sendError } from '../http/error-handler';

/**
 * Liveness (the process answers) and readiness (its database and Redis answer too, and so do the
 * dependencies of any other role in the process: the API's checks join the process's readiness).
 */
export function healthRouter({ db, redis }: ApiDeps, readiness: Readiness): Router {
  readiness.add('database', () => pingDatabase(db));
  readiness.add('redis', () => redisReady(redis));
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const { ready, checks } = await readiness.run();
    if (ready) res.json({ status: 'ok', checks });
    else sendError(res, 'unavailable', 'Not ready', checks);
  });
  return router;
}
