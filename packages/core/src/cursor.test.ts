import { decodeCursor, encodeCursor } from './cursor';
import { AppError } from './errors';

describe('keyset cursor', () => {
  it('round-trips', () => {
    const cursor = { createdAt: 1_763_700_000_123, id: 'bot_01abc' };
    expect(decodeCursor(encodeCursor(cursor))).toEqual(cursor);
  });

  it.each(['!!!', Buffer.from('{}').toString('base64url'), Buffer.from('["x","y"]').toString('base64url'), Buffer.from('[1.5,"y"]').toString('base64url')])(
    'refuses %s as a validation error on cursor',
    (value) => {
      expect(() => decodeCursor(value)).toThrow(AppError);
      try {
        decodeCursor(value);
      } catch (err) {
        expect((err as AppError).code).toBe('validation_error');
        expect((err as AppError).details).toEqual([{ path: 'cursor', message: expect.any(String) }]);
      }
    },
  );
});
