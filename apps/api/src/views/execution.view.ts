import type { Execution, NamedExecutionSummary } from '@botfleet/db';
import type { ExecutionView, TriggerReceipt } from '../contracts/executions.contract';
import { ms } from './time';

export function toExecutionView(execution: NamedExecutionSummary, now = Date.now()): ExecutionView {
  const started = ms(execution.startedAt);
  const completed = ms(execution.completedAt);
  return {
    id: execution.id,
    botId: execution.botId,
    botName: execution.botName,
    status: execution.status,
    trigger: execution.trigger,
    params: (execution.params ?? {}) as Record<string, unknown>,
    ...(execution.rerunOf === null ? {} : { rerunOf: execution.rerunOf }),
    botVersion: execution.botVersion,
    // The claim counter is 0 until a worker first claims the run, which is still the first try.
    attempt: Math.max(execution.attempt, 1),
    createdAt: execution.createdAt.getTime(),
    startedAt: started,
    completedAt: completed,
    // Elapsed so far while running; fixed once it ended; null before it started.
    duration: started === null ? null : (completed ?? now) - started,
    // Only runs that completed with data were compared; others leave the field out.
    ...(execution.dataChanged === null ? {} : { dataChanged: execution.dataChanged }),
  };
}

/** The answer to a trigger: which execution it started (or found, for a repeated key) and its state. */
export function toTriggerReceiptView(execution: Pick<Execution, 'id' | 'status'>): TriggerReceipt {
  return { executionId: execution.id, status: execution.status };
}
