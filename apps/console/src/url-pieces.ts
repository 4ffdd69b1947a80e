/**
 * A URL cut where a line may break: after each '/' past the scheme's "//", before '?' and '#',
 * after '&'. The host stays whole: a host name broken mid-word reads as two names, and the
 * browser finds no break point of its own in a URL.
 */
export function urlPieces(url: string): string[] {
  const pieces: string[] = [];
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url);
  let start = 0;
  for (let at = scheme ? scheme[0].length : 0; at < url.length; at++) {
    const char = url[at];
    if (char === '/' || char === '&') {
      pieces.push(url.slice(start, at + 1));
      start = at + 1;
    } else if ((char === '?' || char === '#') && at > start) {
      pieces.push(url.slice(start, at));
      start = at;
    }
  }
  if (start < url.length) pieces.push(url.slice(start));
  return pieces;
}
