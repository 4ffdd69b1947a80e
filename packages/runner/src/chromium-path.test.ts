import { resolveChromiumPath, SYSTEM_CHROMIUM_PATH } from './chromium-path';

const existing =
  (...paths: string[]) =>
  (path: string) =>
    paths.includes(path);

describe('resolveChromiumPath', () => {
  it('prefers an explicit path', () => {
    expect(
      resolveChromiumPath({ explicitPath: '/opt/chrome', fileExists: existing('/opt/chrome', SYSTEM_CHROMIUM_PATH) }),
    ).toBe('/opt/chrome');
  });

  it('refuses an explicit path that does not exist instead of silently using another browser', () => {
    expect(() =>
      resolveChromiumPath({ explicitPath: '/nope/chrome', fileExists: existing(SYSTEM_CHROMIUM_PATH) }),
    ).toThrow('CHROMIUM_PATH points to /nope/chrome, which does not exist');
  });

  it('falls back to the system package, then to Playwright’s browser', () => {
    const playwrightPath = () => '/cache/ms-playwright/chrome';
    expect(
      resolveChromiumPath({
        explicitPath: '',
        fileExists: existing(SYSTEM_CHROMIUM_PATH, '/cache/ms-playwright/chrome'),
        playwrightPath,
      }),
    ).toBe(SYSTEM_CHROMIUM_PATH);
    expect(resolveChromiumPath({ fileExists: existing('/cache/ms-playwright/chrome'), playwrightPath })).toBe(
      '/cache/ms-playwright/chrome',
    );
  });

  it('explains how to get a browser when there is none', () => {
    expect(() => resolveChromiumPath({ fileExists: () => false, playwrightPath: () => '/cache/chrome' })).toThrow(
      /No Chromium found: set CHROMIUM_PATH/,
    );
    expect(() =>
      resolveChromiumPath({
        fileExists: () => false,
        playwrightPath: () => {
          throw new Error('unsupported platform');
        },
      }),
    ).toThrow(/No Chromium found/);
  });

  it('finds a real browser on this machine', () => {
    expect(resolveChromiumPath({ explicitPath: process.env.CHROMIUM_PATH })).toMatch(/chrom/);
  });
});
