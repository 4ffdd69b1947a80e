import { assertViewport, type Capabilities } from '@botfleet/core';
import type { BrowserContextOptions } from 'playwright-core';

/** Playwright's proxy settings: credentials travel separately from the server address. */
export interface ProxySettings {
  server: string;
  username?: string;
  password?: string;
}

/**
 * Splits `scheme://user:pass@host:port` into Playwright's shape. Chromium ignores credentials
 * embedded in a proxy URL, so they must be answered to its 407 challenge by Playwright instead.
 * Errors never echo the URL: it may carry a password.
 */
export function parseProxyUrl(proxyUrl: string): ProxySettings {
  let url: URL;
  try {
    url = new URL(proxyUrl.includes('://') ? proxyUrl : `http://${proxyUrl}`);
  } catch {
    throw new Error('Invalid proxy URL (expected scheme://[user:pass@]host:port)');
  }
  if (!['http:', 'https:', 'socks5:', 'socks4:'].includes(url.protocol) || !url.hostname) {
    throw new Error('Invalid proxy URL (expected an http, https or socks5 proxy)');
  }
  const settings: ProxySettings = { server: `${url.protocol}//${url.host}` };
  if (url.username) settings.username = decodeURIComponent(url.username);
  if (url.password) settings.password = decodeURIComponent(url.password);
  return settings;
}

/** The proxy URL without credentials, safe for logs. */
export function redactProxyUrl(proxyUrl: string): string {
  try {
    return parseProxyUrl(proxyUrl).server;
  } catch {
    return '(invalid proxy URL)';
  }
}

export interface ContextOptionsInput {
  capabilities: Capabilities;
  proxyUrl?: string | undefined;
  /** Service workers fetch outside context.route, so ad blocking must keep them off. */
  blockServiceWorkers?: boolean;
}

/** Manifest capabilities -> a fresh browser context's options. */
export function buildContextOptions({
  capabilities,
  proxyUrl,
  blockServiceWorkers,
}: ContextOptionsInput): BrowserContextOptions {
  // Playwright accepts downloads unless told otherwise; a run keeps them only when its manifest
  // asks (capabilities.downloads), and otherwise Chromium cancels each one (downloads.ts logs it).
  const options: BrowserContextOptions = { acceptDownloads: capabilities.downloads === true };
  if (capabilities.locale) options.locale = capabilities.locale;
  if (capabilities.timezone) options.timezoneId = capabilities.timezone;
  if (capabilities.userAgent) options.userAgent = capabilities.userAgent;
  if (capabilities.geolocation) {
    options.geolocation = {
      latitude: capabilities.geolocation.latitude,
      longitude: capabilities.geolocation.longitude,
    };
    // Without the permission, pages see a prompt that nobody answers and time out.
    options.permissions = ['geolocation'];
  }
  if (capabilities.resolution) {
    // A manifest stored before the bound existed must not get past it (the schema checks new ones).
    assertViewport(capabilities.resolution);
    options.viewport = { width: capabilities.resolution.width, height: capabilities.resolution.height };
    options.screen = { width: capabilities.resolution.width, height: capabilities.resolution.height };
  }
  if (proxyUrl) options.proxy = parseProxyUrl(proxyUrl);
  if (blockServiceWorkers) options.serviceWorkers = 'block';
  return options;
}

/**
 * The context option recording a run's HAR into `path` (capabilities.har; run-evidence.ts):
 * Playwright writes it as the context closes. Without response bodies: with them a HAR of an
 * ordinary run is megabytes (every script, image and font), and the request side (URLs, statuses,
 * headers, posted forms, timings) is what a failure is read from.
 */
export function harRecordingOptions(path: string): NonNullable<BrowserContextOptions['recordHar']> {
  return { path, content: 'omit', mode: 'full' };
}
