import { buildContextOptions, parseProxyUrl, redactProxyUrl } from './context-options';

describe('parseProxyUrl', () => {
  it('splits credentials out of the URL, decoding them', () => {
    expect(parseProxyUrl('http://us%40er:p%3Ass@proxy.example:8080')).toEqual({
      server: 'http://proxy.example:8080',
      username: 'us@er',
      password: 'p:ss',
    });
  });

  it('keeps a URL without credentials as the server', () => {
    expect(parseProxyUrl('socks5://10.0.0.1:1080')).toEqual({ server: 'socks5://10.0.0.1:1080' });
    expect(parseProxyUrl('proxy.example:3128')).toEqual({ server: 'http://proxy.example:3128' });
  });

  it('rejects garbage without echoing it (it may hold a password)', () => {
    expect(() => parseProxyUrl('ftp://u:secret@host:21')).toThrow(/^Invalid proxy URL/);
    expect(() => parseProxyUrl('http://u:secret@')).toThrow(/^Invalid proxy URL/);
    try {
      parseProxyUrl('ftp://u:secret@host:21');
    } catch (error) {
      expect((error as Error).message).not.toContain('secret');
    }
  });

  it('redacts credentials for logs', () => {
    expect(redactProxyUrl('http://u:secret@proxy.example:8080')).toBe('http://proxy.example:8080');
  });
});

describe('buildContextOptions', () => {
  it('maps every capability', () => {
    expect(
      buildContextOptions({
        capabilities: {
          locale: 'de-DE',
          timezone: 'Europe/Berlin',
          userAgent: 'UA/1',
          geolocation: { latitude: 52.52, longitude: 13.4 },
          resolution: { width: 1280, height: 720 },
          adBlocking: true,
          proxy: true,
          timeout: 30,
          downloads: true,
        },
        proxyUrl: 'http://a:b@p:1',
        blockServiceWorkers: true,
      }),
    ).toEqual({
      acceptDownloads: true,
      locale: 'de-DE',
      timezoneId: 'Europe/Berlin',
      userAgent: 'UA/1',
      geolocation: { latitude: 52.52, longitude: 13.4 },
      permissions: ['geolocation'],
      viewport: { width: 1280, height: 720 },
      screen: { width: 1280, height: 720 },
      proxy: { server: 'http://p:1', username: 'a', password: 'b' },
      serviceWorkers: 'block',
    });
  });

  it('leaves Playwright defaults alone when nothing is set, except downloads, which are off', () => {
    expect(buildContextOptions({ capabilities: {} })).toEqual({ acceptDownloads: false });
  });
});
