import { Router } from 'express';
import type { ApiDeps } from '../deps';
import { sendError } from '../http/error-handler';

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Liveness (the process answers) and readiness (its database and Redis answer too). */
export function healthRouter({ db, redis }: ApiDeps): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const checks = await Promise.allSettled([
      withTimeout(db.$queryRaw`SELECT 1`, 2_000),
      withTimeout(redis.ping(), 2_000),
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
