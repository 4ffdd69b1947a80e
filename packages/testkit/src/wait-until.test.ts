import { waitUntil } from './wait-until';

describe('waitUntil', () => {
  it('returns the first value that is not false, null or undefined', async () => {
    const answers: (number | false | null | undefined)[] = [false, null, undefined, 0];
    const probe = jest.fn(async () => answers.shift());
    await expect(waitUntil(probe, { intervalMs: 1 })).resolves.toBe(0);
    expect(probe).toHaveBeenCalledTimes(4);
  });

  it('resolves true for a plain condition', async () => {
    let calls = 0;
    await expect(waitUntil(() => ++calls === 3, { intervalMs: 1 })).resolves.toBe(true);
    expect(calls).toBe(3);
  });

  it('fails after the deadline, naming what it waited for', async () => {
    const started = Date.now();
    await expect(waitUntil(() => false, { timeoutMs: 100, intervalMs: 10, message: 'the thing' })).rejects.toThrow(
      'waitUntil timed out after 100 ms: the thing',
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  });

  it('fails at once when the probe throws', async () => {
    const probe = jest.fn(() => Promise.reject(new Error('broken probe')));
    await expect(waitUntil(probe, { timeoutMs: 10_000 })).rejects.toThrow('broken probe');
    expect(probe).toHaveBeenCalledTimes(1);
  });
});
