import type { LogEntry } from '@botfleet/sdk';
import { formatClock } from '../format';

/** The run's log lines: time, level, source, attempt when retried, message. */
export function LogsView({ logs }: { logs: LogEntry[] }) {
  const retried = logs.some((line) => line.attempt > 1);
  return (
    <section aria-labelledby="logs-heading">
      <h2 id="logs-heading">Logs</h2>
      {logs.length === 0 ? (
        <p>No log lines.</p>
      ) : (
        // Focusable: the list scrolls on its own, and keyboard users must be able to scroll it.
        <ol class="logs" tabIndex={0} aria-label="Log lines">
          {logs.map((line, index) => (
            <li key={index} class={`log-${line.level}`}>
              <time dateTime={new Date(line.timestamp).toISOString()}>{formatClock(line.timestamp)}</time>{' '}
              <span class="log-level">{line.level}</span> <span class="log-source">{line.source}</span>
              {retried && <span class="log-source"> #{line.attempt}</span>}{' '}
              <span class="log-message">{line.message}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
