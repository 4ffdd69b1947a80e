import type { ExecutionView, LogEntry, StepOutputView } from '@botfleet/core';
import type { Execution, ExecutionLog, StepOutput } from '@botfleet/db';
import { ms } from './time';

export function toExecutionView(execution: Execution, now = Date.now()): ExecutionView {
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

export function toStepOutputView(step: StepOutput, data: unknown = step.data): StepOutputView {
  return {
    index: step.index,
    action: step.action,
    status: step.status,
    data: data ?? null,
    error: step.error,
    startedAt: step.startedAt.getTime(),
    duration: step.durationMs,
  };
}

export function toLogEntry(log: ExecutionLog): LogEntry {
  return { timestamp: log.timestamp.getTime(), level: log.level, source: log.source, message: log.message };
}
