import { persistsAfter, StorageStateSchema, storageStateValues, summarizeStorageState } from './storage-state';

const cookie = (domain: string, value: string, secure = true) => ({
  name: 'sid',
  value,
  domain,
  path: '/',
  expires: -1,
  httpOnly: true,
  secure,
  sameSite: 'Lax' as const,
});

describe('StorageStateSchema', () => {
  it('takes what Playwright exports, filling what an older export left out', () => {
    const parsed = StorageStateSchema.parse({
      cookies: [{ name: 'a', value: 'b', domain: 'example.com', path: '/' }],
      origins: [{ origin: 'https://example.com', localStorage: [{ name: 'k', value: 'v' }] }],
    });
    expect(parsed.cookies[0]).toEqual({
      name: 'a',
      value: 'b',
      domain: 'example.com',
      path: '/',
      expires: -1,
      httpOnly: false,
      secure: false,
      sameSite: 'Lax',
    });
  });

  it.each([
    ['not an object', []],
    ['a cookie without a domain', { cookies: [{ name: 'a', value: 'b' }] }],
    ['an origin with a path', { origins: [{ origin: 'https://example.com/login', localStorage: [] }] }],
    ['a javascript: origin', { origins: [{ origin: 'javascript:alert(1)', localStorage: [] }] }],
    ['a file: origin', { origins: [{ origin: 'file:///etc', localStorage: [] }] }],
    ['an unknown key', { cookies: [], origins: [], extra: 1 }],
    ['a bad sameSite', { cookies: [{ ...cookie('example.com', 'x'), sameSite: 'lax' }] }],
  ])('refuses %s', (_why, state) => {
    expect(StorageStateSchema.safeParse(state).success).toBe(false);
  });
});

describe('summarizeStorageState', () => {
  it('counts cookies, storage keys and databases per origin, never values', () => {
    const state = StorageStateSchema.parse({
      cookies: [
        cookie('.example.com', 'secret-1'),
        cookie('shop.test', 'secret-2', false),
        cookie('example.com', 's3'),
      ],
      origins: [
        {
          origin: 'https://example.com',
          localStorage: [
            { name: 'a', value: 'secret-4' },
            { name: 'b', value: 'secret-5' },
          ],
          indexedDB: [{ name: 'db', version: 1, stores: [] }],
        },
      ],
    });
    const summary = summarizeStorageState(state);
    expect(summary).toEqual([
      { origin: 'http://shop.test', cookies: 1, localStorageKeys: 0, indexedDBDatabases: 0 },
      { origin: 'https://example.com', cookies: 2, localStorageKeys: 2, indexedDBDatabases: 1 },
    ]);
    expect(JSON.stringify(summary)).not.toMatch(/secret|s3/);
    expect(storageStateValues(state).sort()).toEqual(['s3', 'secret-1', 'secret-2', 'secret-4', 'secret-5']);
  });
});

describe('persistsAfter', () => {
  it('saves on success by default, always on any end but a cancel, never with never', () => {
    expect(
      ['completed', 'failed', 'timed_out', 'cancelled'].map((s) => persistsAfter('onSuccess', s as never)),
    ).toEqual([true, false, false, false]);
    expect(['completed', 'failed', 'timed_out', 'cancelled'].map((s) => persistsAfter('always', s as never))).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect(persistsAfter('never', 'completed')).toBe(false);
  });
});
