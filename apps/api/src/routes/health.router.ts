import { pingDatabase } from '@botfleet/db';
import { answerProbe, PROBE_PATHS, type Readiness } from '@botfleet/ops';
import { executionRun, queueSlotReady } from '@botfleet/queue';
import { Router } from 'express';
import type { ApiDeps } from '../deps';

/**
 * Liveness (the process answers) and readiness (its database and Redis answer too, and so do the
 * dependencies of any other role in the process: the API's checks join the process's readiness).
 * The answers are the ops server's (packages/ops probes.ts), served on the API's port too.
 */
export function healthRouter({ db, redis, queues }: ApiDeps, readiness: Readiness): Router {
  readiness.add('database', () => pingDatabase(db));
  // The API's every trigger enqueues onto the executions queue (a script over its keys).
  readiness.add('redis', () => queueSlotReady(redis, queues.prefix, executionRun.queue));
  const router = Router();
  for (const path of PROBE_PATHS) {
    router.get(path, async (_req, res) => {
      const answer = await answerProbe(path, readiness);
      res.status(answer.status).set(answer.headers).json(answer.body);
    });
  }
  return router;
}
