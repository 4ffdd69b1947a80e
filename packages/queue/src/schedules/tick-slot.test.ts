import { tickSlotOf } from './tick-slot';

describe('tickSlotOf', () => {
  it('reads the slot from a job scheduler job id', () => {
    expect(tickSlotOf('repeat:bot-bot_01abc:1763769600000', 'bot-bot_01abc')).toBe(1763769600000);
  });

  it('rejects ids of other schedulers, plain jobs and missing ids', () => {
    expect(tickSlotOf('repeat:bot-bot_other:1763769600000', 'bot-bot_01abc')).toBeNull();
    expect(tickSlotOf('exe_01abc', 'bot-bot_01abc')).toBeNull();
    expect(tickSlotOf('repeat:bot-bot_01abc:', 'bot-bot_01abc')).toBeNull();
    expect(tickSlotOf('repeat:bot-bot_01abc:12x', 'bot-bot_01abc')).toBeNull();
    expect(tickSlotOf(undefined, 'bot-bot_01abc')).toBeNull();
  });
});
