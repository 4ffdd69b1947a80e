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

export function createLogger(options: { level?: string; name?: string } = {}): Logger {
  return pino({
    name: options.name ?? 'botfleet',
    level: options.level ?? 'info',
    redact: { paths: REDACT, censor: '[redacted]' },
    base: { pid: process.pid },
  });
}
