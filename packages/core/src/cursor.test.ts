import { encodeCursor, parseCursor } from './cursor';
import { newId } from './ids';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('keyset cursor', () => {
  it('round-trips', () => {
    const cursor = { createdAt: 1_763_700_000_123, id: newId('bot') };
    expect(parseCursor(encodeCursor(cursor))).toEqual(cursor);
  });

  it.each([
    ['another alphabet', '!!!'],
    ['a NUL byte', 'abc\u0000'],
    ['an object', b64({})],
    ['strings', b64(['x', 'y'])],
    ['a fractional time', b64([1.5, newId('bot')])],
    ['a date past year 275760', b64([8.64e15 + 1, newId('bot')])],
    ['a negative date', b64([-1, newId('bot')])],
    ['an id of another shape', b64([1, 'bot_01abc'])],
    ['an id with NUL', b64([1, `${newId('bot').slice(0, -1)}\u0000`])],
    ['a truncated cursor', encodeCursor({ createdAt: 1, id: newId('bot') }).slice(0, 20)],
  ])('refuses %s', (_why, value) => {
    expect(parseCursor(value)).toBeNull();
  });
});
