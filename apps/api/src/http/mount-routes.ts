import { Router, type NextFunction, type Request, type Response } from 'express';
import type { Authenticate } from './authenticate';
import { parseInput, parsePath } from './parse-input';
import type { AuthContext, Route } from './route';

const PUBLIC: AuthContext = { keyId: '', organizationId: '', permission: 'read' };

/** Turns declared routes into an Express router: authenticate, validate, run, respond. */
export function mountRoutes(routes: Route[], authenticate: Authenticate, checkRateLimit: (keyId: string) => Promise<void>): Router {
  const router = Router();
  for (const { definition: def, handler } of routes) {
    router[def.method](def.path, async (req: Request, res: Response, next: NextFunction) => {
      try {
        // Order matters: who you are (401/403) before what you sent (400) before what exists (404).
        const auth = def.permission ? await authenticate(req, def.permission) : PUBLIC;
        if (def.permission) await checkRateLimit(auth.keyId);
        const path = def.params ? parsePath(def.params, req.params) : { params: undefined, notFound: null };
        const query = def.query ? parseInput(def.query, req.query, 'query') : undefined;
        const body = def.body ? parseInput(def.body, req.body === undefined ? {} : req.body, 'body') : undefined;
        if (path.notFound) throw path.notFound;
        const params = path.params;
        const result = await handler({ auth, params, query, body, req, res });
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
