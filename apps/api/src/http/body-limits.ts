import type { Request } from 'express';
import type { Route } from './route';

/**
 * The body limit of each request: the route's own `bodyLimitBytes` when the method and path
 * match a route that declares one, else the API's. Bodies are read before routing, so the
 * declared paths are matched here (`:param` matches one path segment).
 */
export function bodyLimitOf(routes: readonly Route[], prefix: string, defaultBytes: number): (req: Request) => number {
  const own = routes
    .filter(({ definition }) => definition.bodyLimitBytes !== undefined)
    .map(({ definition }) => ({
      method: definition.method.toUpperCase(),
      pattern: new RegExp(`^${prefix}${definition.path.replace(/:[A-Za-z]+/g, '[^/]+')}/?$`),
      bytes: definition.bodyLimitBytes!,
    }));
  return (req) =>
    own.find(({ method, pattern }) => method === req.method && pattern.test(req.path))?.bytes ?? defaultBytes;
}
