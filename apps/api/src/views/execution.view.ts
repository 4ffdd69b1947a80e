import type { ExecutionView } from '@botfleet/core';
import type { Execution, ExecutionSummary } from '@botfleet/db';
import { ms } from './time';

export function toExecutionView(execution: ExecutionSummary, now = Date.now()): ExecutionView {
  const started = ms(execution.startedAt);
  const completed = ms(execution.completedAt);
  return {
    id: execution.id,
    botId: execution.botId,
    status: execution.status,
    trigger: execution.trigger,
    params: (execution.params ?? {}) as Record<string, unknown>,
    createdAt: execution.createdAt.getTime(),
    startedAt: started,
    completedAt: completed,
    // Elapsed so far while running; fixed once it ended; null before it started.
    duration: started === null ? null : (completed ?? now) - started,
  };
}

/** The answer to a trigger: which execution it started (or found, for a repeated key) and its state. */
export function toTriggerReceiptView(execution: Pick<Execution, 'id' | 'status'>): {
  executionId: string;
  status: Execution['status'];
} {
  return { executionId: execution.id, status: execution.status };
}
