import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

/** Compared as digests so neither the length nor the content leaks through timing. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** The password of an `Authorization: Basic` header (any user name), or null. */
export function basicPassword(header: string | undefined): string | null {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon === -1 ? null : decoded.slice(colon + 1);
}

/**
 * HTTP Basic for operator pages: the password must be `token`, whatever the user name. A wrong or
 * missing one answers 401 with a `Basic` challenge, so a browser asks for it. Organizations' API
 * keys are not accepted here: these pages show every organization's work.
 */
export function requireBasicPassword(token: string, realm: string) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const password = basicPassword(req.get('authorization'));
    if (password !== null && sameSecret(password, token)) {
      next();
      return;
    }
    // The API's envelope, but a Basic challenge (the API's own 401s ask for a Bearer key).
    res.setHeader('WWW-Authenticate', `Basic realm="${realm}", charset="UTF-8"`);
    res.status(401).json({
      error: { code: 'unauthorized', message: 'This page needs the operator’s OPS_ADMIN_TOKEN as the Basic password' },
    });
  };
}
