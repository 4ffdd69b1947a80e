import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

const CLIENT_ID = /^[A-Za-z0-9._:-]{1,128}$/;

declare module 'express-serve-static-core' {
  interface Request {
    id: string;
  }
}

/** Every response carries X-Request-Id; a well-formed one from the client is echoed. */
export function requestId(req: Request, res: Response, next: NextFunction): void {
  const given = req.headers['x-request-id'];
  req.id = typeof given === 'string' && CLIENT_ID.test(given) ? given : randomUUID();
  res.setHeader('X-Request-Id', req.id);
  next();
}
