/** The failure an execution reports when it asks for a proxy and the pool is empty. */
export const NO_PROXIES_MESSAGE = 'Proxy routing requested but no proxies are configured (PROXY_URLS is empty)';

export interface ProxyPool {
  readonly size: number;
  /** The next proxy URL, round-robin; null when the pool is empty. */
  next(): string | null;
}

/** PROXY_URLS (comma-separated) -> a list of proxy URLs; blanks are dropped. */
export function parseProxyUrls(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

/**
 * Round-robin over the configured proxies. The cursor is per process: with several workers the
 * spread is even overall without coordinating through Redis.
 */
export function createProxyPool(urls: readonly string[]): ProxyPool {
  const list = [...urls];
  let cursor = 0;
  return {
    size: list.length,
    next() {
      if (list.length === 0) return null;
      const url = list[cursor % list.length]!;
      cursor = (cursor + 1) % list.length;
      return url;
    },
  };
}
