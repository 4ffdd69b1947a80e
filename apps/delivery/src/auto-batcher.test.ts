import { createAutoBatcher } from './auto-batcher';

describe('auto batcher', () => {
  it('runs calls of one turn together, and gathers calls made while a batch runs into the next', async () => {
    const batches: number[][] = [];
    let finishFirst!: () => void;
    const firstDone = new Promise<void>((resolve) => (finishFirst = resolve));
    const double = createAutoBatcher(async (inputs: number[]) => {
      batches.push(inputs);
      if (batches.length === 1) await firstDone;
      return inputs.map((n) => n * 2);
    }, 3);

    const first = [double(1), double(2)];
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([[1, 2]]);
    // While the first batch runs: five more calls, run as batches of at most three once it ends.
    const later = [3, 4, 5, 6, 7].map(double);
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toHaveLength(1);
    finishFirst();
    expect(await Promise.all([...first, ...later])).toEqual([2, 4, 6, 8, 10, 12, 14]);
    expect(batches).toEqual([
      [1, 2],
      [3, 4, 5],
      [6, 7],
    ]);
  });

  it('rejects every call of a failed batch, and the next batch still runs', async () => {
    let fail = true;
    const run = createAutoBatcher(async (inputs: string[]) => {
      if (fail) throw new Error('database down');
      return inputs;
    }, 10);
    const failed = [run('a'), run('b')];
    await expect(Promise.all(failed.map((call) => call.catch((error: Error) => error.message)))).resolves.toEqual([
      'database down',
      'database down',
    ]);
    fail = false;
    await expect(run('c')).resolves.toBe('c');
  });
});
