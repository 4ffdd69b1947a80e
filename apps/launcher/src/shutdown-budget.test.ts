import { shutdownBudget } from './shutdown-budget';

describe('shutdownBudget', () => {
  it('keeps up to 10 s of the grace period for what follows the drain', () => {
    expect(shutdownBudget(30)).toEqual({ graceMs: 30_000, drainMs: 20_000 });
    expect(shutdownBudget(120)).toEqual({ graceMs: 120_000, drainMs: 110_000 });
    expect(shutdownBudget(3)).toEqual({ graceMs: 3_000, drainMs: 2_000 });
  });
});
