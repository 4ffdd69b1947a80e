import pino, { type Logger as PinoLogger } from 'pino';

/** Paths pino blanks out wherever they appear, so a careless log call cannot leak a secret. */
const REDACT = [
  'password',
  'secret',
  'token',
  'key',
  'authorization',
  '*.password',
  '*.secret',
  '*.token',
  '*.key',
  '*.authorization',
  'req.headers.authorization',
  'headers.authorization',
];

/**
 * The process's logger: JSON lines on stdout (or `destination`). It lives here rather than in
 * @botfleet/core because writing is I/O; packages take it as core's `Logger`, which it satisfies.
 */
export function createLogger(
  options: {
    level?: string;
    name?: string;
    /** Where the JSON lines go (default stdout); tests pass a stream to read what was logged. */
    destination?: pino.DestinationStream;
  } = {},
): PinoLogger {
  const settings = {
    name: options.name ?? 'botfleet',
    level: options.level ?? 'info',
    redact: { paths: REDACT, censor: '[redacted]' },
    base: { pid: process.pid },
  };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}
