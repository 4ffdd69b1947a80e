import { CONFIG_DEFAULTS } from '@botfleet/core';
import { listStaleUnfinishedExecutions } from '@botfleet/db';
import { failUnfinishedExecution } from '@botfleet/db/state';
import { enqueueExecutionRuns, executionRun } from '@botfleet/queue';
import { notifyBestEffort, publishRunChanges, statusNotice } from './after-commit';
import { INFRASTRUCTURE_FAILURE } from './caps';
import type { EngineDeps } from './engine-deps';
import type { SweepOptions } from './sweep-options';

export interface ExecutionSweepOptions extends SweepOptions {
  /** A pending row younger than this may still be on its way into Redis. */
  pendingGraceMs: number;
}

/**
 * The execution sweep (the worker role runs it periodically). Redis holds work in flight;
 * PostgreSQL holds the truth. Pending executions whose job is missing (the enqueue after a commit
 * failed, Redis was flushed) are enqueued again; running ones whose job is gone or finished (their
 * worker died and the job cannot come back) are failed.
 */
export async function sweepExecutions(
  deps: EngineDeps,
  options: ExecutionSweepOptions,
): Promise<{ enqueued: number; failed: number }> {
  const { db, queues, logger } = deps;
  const before = new Date(Date.now() - options.pendingGraceMs);
  const rows = await listStaleUnfinishedExecutions(
    db,
    before,
    options.batchSize ?? CONFIG_DEFAULTS.fixed.sweepBatchSize,
    options.organizationId,
  );
  const queue = queues.get(executionRun.queue);
  let enqueued = 0;
  let failed = 0;
  for (const row of rows) {
    if (options.signal?.aborted) break;
    const job = await queue.getJob(executionRun.jobIdOf({ executionId: row.id }));
    const state = job ? await job.getState() : 'missing';
    if (row.status === 'pending' && (state === 'missing' || state === 'unknown')) {
      await enqueueExecutionRuns(queues, row.organizationId, [row.id]);
      enqueued++;
    } else if (state === 'missing' || state === 'unknown' || state === 'completed' || state === 'failed') {
      // A running row without a live job, or a pending one whose job already ended: no worker
      // will ever finish it.
      const error = `${INFRASTRUCTURE_FAILURE}: execution was lost by its worker and could not be recovered`;
      const lost = await failUnfinishedExecution(db, row.id, error);
      if (lost) {
        failed++;
        await notifyBestEffort(logger, { executionId: lost.id }, [
          publishRunChanges(deps, [statusNotice({ ...lost, status: 'failed' })]),
        ]);
      }
    }
  }
  if (enqueued + failed > 0) logger.info({ enqueued, failed }, 'execution sweep repaired rows');
  return { enqueued, failed };
}
