import { quoteUrl, type LogLevel } from '@botfleet/core';
import type { BrowserContext, ConsoleMessage, Request, Response, WebError } from 'playwright-core';
import type { RunSession } from './run-session';

/** The most page lines one run logs; one line then says the rest were dropped. */
export const MAX_PAGE_LOG_LINES = 200;
/** A page line is cut to this many characters: a page may log a whole document. */
export const MAX_PAGE_LOG_LINE_CHARS = 1_000;

/** What the ad blocker and the egress guard abort with: they report those requests themselves. */
const BLOCKED_BY_BOTFLEET = 'net::ERR_BLOCKED_BY_CLIENT';

/**
 * Writes what the context's pages say into the run's logs (`source: "page"`): console messages,
 * uncaught errors, requests that failed (with the URL and the network error) and HTTP error
 * responses (with the URL and the status). Context-level events, so every page and popup of the
 * run is covered from its first request. Bounded: at most MAX_PAGE_LOG_LINES lines, each cut to
 * MAX_PAGE_LOG_LINE_CHARS. Give it the run's guarded session: lines are redacted and count
 * against the run's output budget like any other log line, and stop when the run has its result.
 */
export function watchPageLogs(context: BrowserContext, session: RunSession): void {
  let lines = 0;
  const write = (level: LogLevel, message: string) => {
    lines++;
    if (lines > MAX_PAGE_LOG_LINES) {
      if (lines === MAX_PAGE_LOG_LINES + 1) {
        session.log('warn', 'runner', `Further page log lines were dropped: a run logs at most ${MAX_PAGE_LOG_LINES}`);
      }
      return;
    }
    const line = message.length > MAX_PAGE_LOG_LINE_CHARS ? `${message.slice(0, MAX_PAGE_LOG_LINE_CHARS)}…` : message;
    session.log(level, 'page', line);
  };

  context.on('console', (message: ConsoleMessage) => {
    const type = message.type();
    const level: LogLevel = type === 'error' ? 'error' : type === 'warning' ? 'warn' : 'info';
    // Named as the page called it (console.warn reports as 'warning').
    write(level, `console.${type === 'warning' ? 'warn' : type}: ${message.text()}`);
  });
  context.on('weberror', (webError: WebError) => {
    const error = webError.error();
    write('error', `Uncaught ${error.name || 'error'}: ${error.message}`);
  });
  context.on('requestfailed', (request: Request) => {
    const failure = request.failure()?.errorText ?? 'unknown error';
    if (failure === BLOCKED_BY_BOTFLEET) return;
    write('error', `Request failed: ${request.method()} ${quoteUrl(request.url())}: ${failure}`);
  });
  context.on('response', (response: Response) => {
    const status = response.status();
    if (status < 400) return;
    const method = response.request().method();
    write(status >= 500 ? 'error' : 'warn', `HTTP ${status} from ${method} ${quoteUrl(response.url())}`);
  });
}
