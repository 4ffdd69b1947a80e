import { after, firstOrDeadline, settlesWithin, withTimeout } from './time-limit';

class Custom extends Error {}

describe('time limits', () => {
  it('firstOrDeadline answers the first candidate to settle, or the deadline value, and leaves no timer', async () => {
    expect(await firstOrDeadline([new Promise(() => undefined), Promise.resolve('work')], 10_000, 'deadline')).toBe(
      'work',
    );
    expect(await firstOrDeadline([new Promise<string>(() => undefined)], 10, 'deadline')).toBe('deadline');
    jest.useFakeTimers();
    try {
      await firstOrDeadline([Promise.resolve(1)], 60_000, 0);
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  it('withTimeout passes a result through and rejects at the deadline with the given error', async () => {
    expect(await withTimeout(Promise.resolve(7), 1_000, 'late')).toBe(7);
    await expect(withTimeout(new Promise(() => undefined), 10, 'late')).rejects.toThrow('late');
    await expect(withTimeout(new Promise(() => undefined), 10, () => new Custom('mine'))).rejects.toBeInstanceOf(
      Custom,
    );
  });

  it('settlesWithin counts a rejection as settled and a hang as not', async () => {
    expect(await settlesWithin(Promise.reject(new Error('x')), 1_000)).toBe(true);
    expect(await settlesWithin(new Promise(() => undefined), 10)).toBe(false);
  });

  it('after resolves with its value, and cancel stops it', async () => {
    expect(await after(5, 'done').promise).toBe('done');
    const cancelled = after(5, 'never');
    cancelled.cancel();
    expect(await settlesWithin(cancelled.promise, 50)).toBe(false);
  });
});
