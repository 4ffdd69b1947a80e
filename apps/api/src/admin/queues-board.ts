import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { jobCatalog, type Queues } from '@botfleet/queue';
import { Router } from 'express';
import { requireBasicPassword } from './basic-auth';

export const QUEUES_BOARD_PATH = '/admin/queues';

/**
 * Bull Board over every queue the job catalog declares, for the fleet's operator: HTTP Basic with
 * OPS_ADMIN_TOKEN as the password. Without a token there is no board at all (the path is a 404),
 * since it shows and can retry or remove every organization's jobs.
 */
export function queuesBoard(queues: Queues, adminToken: string | undefined): Router | null {
  if (!adminToken) return null;
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(QUEUES_BOARD_PATH);
  const names = [...new Set(jobCatalog.map((job) => job.queue))];
  createBullBoard({
    queues: names.map((name) => new BullMQAdapter(queues.get(name))),
    serverAdapter,
  });
  const router = Router();
  router.use(
    QUEUES_BOARD_PATH,
    requireBasicPassword(adminToken, 'botfleet queues'),
    serverAdapter.getRouter() as Router,
  );
  return router;
}
