import type { Logger } from './logger-interface';
import { RepeatedLog } from './repeated-log';

/** A logger that records what it was asked to write. */
function recordingLogger() {
  const lines: Array<{ level: string; fields: Record<string, unknown>; message: string }> = [];
  const record = (level: string) => (fields: Record<string, unknown>, message: string) =>
    lines.push({ level, fields, message });
  return { lines, logger: { warn: record('warn'), error: record('error') } as unknown as Logger };
}

describe('RepeatedLog', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('writes the first line at once and folds repeats within 10 s into one line with a count', () => {
    const { lines, logger } = recordingLogger();
    const log = new RepeatedLog(10_000);
    for (let i = 0; i < 1_000; i++) log.error(logger, { err: 'CROSSSLOT', queue: 'executions' }, 'consumer error');
    expect(lines).toEqual([
      { level: 'error', fields: { err: 'CROSSSLOT', queue: 'executions' }, message: 'consumer error' },
    ]);

    jest.advanceTimersByTime(9_999);
    expect(lines).toHaveLength(1);
    jest.advanceTimersByTime(1);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toEqual({
      level: 'error',
      fields: { err: 'CROSSSLOT', queue: 'executions', repeated: 999 },
      message: 'consumer error',
    });

    // Still repeating: one more line per window, each counting its own window's repeats.
    for (let i = 0; i < 5; i++) log.error(logger, { err: 'CROSSSLOT' }, 'consumer error');
    jest.advanceTimersByTime(10_000);
    expect(lines.map((line) => line.fields.repeated)).toEqual([undefined, 999, 5]);
  });

  it('writes the next occurrence at once after a quiet window, and nothing for a window with no repeats', () => {
    const { lines, logger } = recordingLogger();
    const log = new RepeatedLog(10_000);
    log.warn(logger, { err: 'ECONNREFUSED' }, 'redis connection error');
    jest.advanceTimersByTime(30_000);
    expect(lines).toHaveLength(1);
    log.warn(logger, { err: 'ECONNREFUSED' }, 'redis connection error');
    expect(lines).toHaveLength(2);
    expect(lines[1]!.fields.repeated).toBeUndefined();
  });

  it('keeps different messages, errors and levels apart', () => {
    const { lines, logger } = recordingLogger();
    const log = new RepeatedLog(10_000);
    log.error(logger, { err: 'CROSSSLOT' }, 'consumer error');
    log.error(logger, { err: 'MOVED 1 127.0.0.1:7000' }, 'consumer error');
    log.error(logger, { err: 'CROSSSLOT' }, 'queue error');
    log.warn(logger, { err: 'CROSSSLOT' }, 'consumer error');
    log.error(logger, { err: 'CROSSSLOT' }, 'consumer error');
    expect(lines).toHaveLength(4);
    jest.advanceTimersByTime(10_000);
    expect(lines).toHaveLength(5);
    expect(lines[4]!.fields).toEqual({ err: 'CROSSSLOT', repeated: 1 });
  });
});
