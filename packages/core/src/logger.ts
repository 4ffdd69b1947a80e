import pino, { type Logger } from 'pino';

export type { Logger };

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

export function createLogger(
  options: {
    level?: string;
    name?: string;
    /** Where the JSON lines go (default stdout); tests pass a stream to read what was logged. */
    destination?: pino.DestinationStream;
  } = {},
): Logger {
  const settings = {
    name: options.name ?? 'botfleet',
    level: options.level ?? 'info',
    redact: { paths: REDACT, censor: '[redacted]' },
    base: { pid: process.pid },
  };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}
