/**
 * A URL the API built with PUBLIC_BASE_URL (a failure's screenshotUrl), as a path on the origin
 * the console was loaded from. The console and the API share one origin, and PUBLIC_BASE_URL may
 * name a host this browser does not reach (an internal name, a proxy), so the path is what counts;
 * its signature covers the path and query, not the host.
 */
export function sameOriginPath(url: string): string {
  try {
    const parsed = new URL(url, window.location.href);
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return url;
  }
}
