import type { LogEntry } from '../contracts/execution-results.contract';
import type { ExecutionLog } from '@botfleet/db';

export function toLogEntryView(log: ExecutionLog): LogEntry {
  return {
    timestamp: log.timestamp.getTime(),
    level: log.level,
    source: log.source,
    message: log.message,
    attempt: log.attempt,
  };
}
