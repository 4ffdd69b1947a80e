import { NO_LIMIT_OVERRIDES } from '@botfleet/core';
import type { Db } from '@botfleet/db';
import { Router, type NextFunction, type Request, type Response } from 'express';
import type { Authenticate } from './authenticate';
import { parseHeaders, parseInput, parsePath } from './parse-input';
import type { AuthContext, Route } from './route';

const PUBLIC: AuthContext = { keyId: '', organizationId: '', permission: 'read', limits: NO_LIMIT_OVERRIDES };

export interface MountDeps {
  /** Handed to resource loaders. */
  db: Db;
  authenticate: Authenticate;
  checkRateLimit: (auth: AuthContext) => Promise<void>;
}

/** Turns declared routes into an Express router: authenticate, validate, load, run, respond. */
export function mountRoutes(routes: Route[], { db, authenticate, checkRateLimit }: MountDeps): Router {
  const router = Router();
  for (const { definition: def, handler } of routes) {
    router[def.method](def.path, async (req: Request, res: Response, next: NextFunction) => {
      try {
        // Order matters: who you are (401/403) before what you sent (400) before what exists (404).
        const auth = def.permission ? await authenticate(req, def.permission) : PUBLIC;
        if (def.permission) await checkRateLimit(auth);
        const path = def.params ? parsePath(def.params, req.params) : { params: undefined, notFound: null };
        const query = def.query ? parseInput(def.query, req.query, 'query') : undefined;
        const body = def.body ? parseInput(def.body, req.body === undefined ? {} : req.body, 'body') : undefined;
        const headers = def.headers ? parseHeaders(def.headers, (name) => req.get(name)) : undefined;
        if (path.notFound) throw path.notFound;
        const params = path.params;
        // One after another, in declaration order: a later loader's 404 only speaks once the
        // earlier resource (e.g. the bot a script belongs to) is known to be the caller's.
        const loaded: Record<string, unknown> = {};
        for (const [name, load] of Object.entries(def.load ?? {})) loaded[name] = await load({ db, auth, params });
        const result = await handler({ ...loaded, auth, params, query, body, headers, req, res });
        if (result.handled) return;
        for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
        if (result.body === undefined) res.status(result.status).end();
        else res.status(result.status).json(result.body);
      } catch (err) {
        next(err);
      }
    });
  }
  return router;
}
