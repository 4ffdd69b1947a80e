import { createProxyPool, parseProxyUrls } from './proxy-pool';

describe('proxy pool', () => {
  it('parses PROXY_URLS, dropping blanks', () => {
    expect(parseProxyUrls(' http://a:1 , ,http://b:2,')).toEqual(['http://a:1', 'http://b:2']);
    expect(parseProxyUrls(undefined)).toEqual([]);
    expect(parseProxyUrls('')).toEqual([]);
  });

  it('hands proxies out round-robin', () => {
    const pool = createProxyPool(['http://a:1', 'http://b:2', 'http://c:3']);
    expect(pool.size).toBe(3);
    expect(Array.from({ length: 7 }, () => pool.next())).toEqual([
      'http://a:1',
      'http://b:2',
      'http://c:3',
      'http://a:1',
      'http://b:2',
      'http://c:3',
      'http://a:1',
    ]);
  });

  it('returns null when empty', () => {
    expect(createProxyPool([]).next()).toBeNull();
  });
});
