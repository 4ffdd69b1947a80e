import { encodeBotListCursor, parseBotListCursor, type BotListCursor } from './bot-list-cursor';
import { encodeCursor } from './cursor';
import { newId } from './ids';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('bot list cursor', () => {
  const id = newId('bot');

  it.each<BotListCursor>([
    { sort: '-createdAt', key: 1_763_700_000_123, id },
    { sort: 'createdAt', key: 0, id },
    { sort: 'name', key: 'Prix « été » 😀 "quoted" \\ %_', id },
    { sort: 'name', key: '\u0001'.repeat(200), id },
    { sort: '-lastRunAt', key: 1_763_700_000_123, id },
    { sort: '-lastRunAt', key: null, id },
  ])('round-trips $sort $key', (cursor) => {
    expect(parseBotListCursor(encodeBotListCursor(cursor))).toEqual(cursor);
  });

  it('reads a cursor issued before sorting as newest first', () => {
    expect(parseBotListCursor(encodeCursor({ createdAt: 1_763_700_000_123, id }))).toEqual({
      sort: '-createdAt',
      key: 1_763_700_000_123,
      id,
    });
  });

  it.each([
    ['another alphabet', '!!!'],
    ['an empty string', ''],
    ['an object', b64({})],
    ['an unknown sort', b64(['updatedAt', 1, id])],
    ['a name key for a time sort', b64(['-createdAt', 'x', id])],
    ['a null createdAt', b64(['createdAt', null, id])],
    ['a fractional time', b64(['-lastRunAt', 1.5, id])],
    ['a negative time', b64(['createdAt', -1, id])],
    ['a time past year 275760', b64(['-createdAt', 8.64e15 + 1, id])],
    ['a number as name', b64(['name', 3, id])],
    ['an empty name', b64(['name', '', id])],
    ['a name longer than any bot’s', b64(['name', 'x'.repeat(201), id])],
    ['an id of another shape', b64(['name', 'x', 'bot_01abc'])],
    ['four elements', b64(['name', 'x', id, 1])],
    ['a truncated cursor', encodeBotListCursor({ sort: 'name', key: 'abc', id }).slice(0, 20)],
    ['a cursor longer than any issued', 'A'.repeat(2049)],
  ])('refuses %s', (_why, value) => {
    expect(parseBotListCursor(value)).toBeNull();
  });
});
