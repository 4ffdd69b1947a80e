import { isAnyId, isIdOf, newId } from './ids';

describe('ids', () => {
  it('gives prefixed, time-sortable ids that isIdOf recognises', () => {
    const first = newId('bot');
    expect(first).toMatch(/^bot_[0-9a-z]{26}$/);
    expect(isIdOf('bot', first)).toBe(true);
    expect(isIdOf('exe', first)).toBe(false);
    expect(isAnyId(first)).toBe(true);
  });

  it('never repeats a random tail, across the blocks its random bytes come in', () => {
    // 1,000 ids use four blocks of random bytes; a tail reused from a block would show here.
    const tails = Array.from({ length: 1_000 }, () => newId('exe').slice(14));
    expect(new Set(tails).size).toBe(tails.length);
  });

  it.each([
    'bot_',
    'bot_doesnotexist',
    `${newId('bot')}x`,
    newId('bot').toUpperCase(),
    `${newId('bot').slice(0, -1)}\u0000`,
    `${newId('bot').slice(0, -1)}u`,
    "bot_' OR 1=1 --",
  ])('refuses %j', (value) => {
    expect(isIdOf('bot', value)).toBe(false);
    expect(isAnyId(value)).toBe(false);
  });
});
