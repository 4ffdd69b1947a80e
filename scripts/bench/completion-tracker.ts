import { Client } from 'pg';
import { sleep } from './stats';

/** A finished execution as the worker left it in its row. */
export interface FinishedExecution {
  id: string;
  status: string;
  createdAt: Date;
  startedAt: Date | null;
  completedAt: Date | null;
  extractedData: unknown;
  error: string | null;
}

export interface CompletionTracker {
  /** Resolves once the execution's row is final (completed, failed or cancelled). */
  waitFor(executionId: string): Promise<FinishedExecution>;
  /** Poll queries made so far. */
  readonly polls: number;
  stop(): Promise<void>;
}

const FINAL = ['completed', 'failed', 'cancelled'] as const;

/**
 * Detects completions by polling the rows of the executions being waited for, all in one
 * primary-key query per tick. The poll interval only delays noticing a completion (and so the
 * next trigger), never the latency measured: that ends at the row's completedAt. With a spare
 * job queued behind each busy worker slot, a short delay here does not starve the worker.
 * It uses a plain pg connection rather than Prisma: the polling runs in the worker's process and
 * its CPU is counted with the e2e side, so it should cost as little as it can.
 */
export async function createCompletionTracker(
  databaseUrl: string,
  options: { intervalMs: number; timeoutMs: number },
): Promise<CompletionTracker> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  let polls = 0;
  const waiting = new Map<
    string,
    { since: number; resolve: (row: FinishedExecution) => void; reject: (error: Error) => void }
  >();
  let running = true;

  const loop = async () => {
    while (running) {
      if (waiting.size > 0) {
        try {
          polls++;
          const { rows } = await client.query<FinishedExecution>(
            `SELECT id, status, "createdAt", "startedAt", "completedAt", "extractedData", error
               FROM "Execution" WHERE id = ANY($1) AND status = ANY($2::"ExecutionStatus"[])`,
            [[...waiting.keys()], FINAL],
          );
          for (const row of rows) {
            waiting.get(row.id)?.resolve(row);
            waiting.delete(row.id);
          }
        } catch (error) {
          for (const waiter of waiting.values()) waiter.reject(error as Error);
          waiting.clear();
        }
        const now = Date.now();
        for (const [id, waiter] of waiting) {
          if (now - waiter.since > options.timeoutMs) {
            waiter.reject(new Error(`execution ${id} did not finish within ${options.timeoutMs} ms`));
            waiting.delete(id);
          }
        }
      }
      await sleep(options.intervalMs);
    }
  };
  const looping = loop();

  return {
    waitFor(executionId) {
      return new Promise((resolve, reject) => waiting.set(executionId, { since: Date.now(), resolve, reject }));
    },
    get polls() {
      return polls;
    },
    async stop() {
      running = false;
      for (const waiter of waiting.values()) waiter.reject(new Error('completion tracker stopped'));
      waiting.clear();
      await looping;
      await client.end();
    },
  };
}
