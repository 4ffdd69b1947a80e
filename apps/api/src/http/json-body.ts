import { AppError } from '@botfleet/core';
import express, { type NextFunction, type Request, type Response } from 'express';

/** Keys that could reach Object.prototype when a parsed body is copied or merged. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

class ForbiddenKeyError extends Error {
  constructor(
    readonly key: string,
    readonly reason: string,
  ) {
    super(reason);
  }
}

function isJsonContentType(req: Request): boolean {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/**
 * JSON-only request bodies with a size limit and a deadline. The text is parsed here (not by
 * body-parser) so hostile keys are refused before any code sees them, and every failure maps to
 * the contract: 415 for another content type, 400 invalid_json, 413 over the limit, 408 when the
 * body has not arrived within `timeoutMs` (a slow-loris holds nothing for long).
 */
export function jsonBody(options: { limitBytes: number | ((req: Request) => number); timeoutMs: number }) {
  const limitOf = typeof options.limitBytes === 'number' ? () => options.limitBytes as number : options.limitBytes;
  // One reader per limit in use (a few: the API's, and a route's own such as a recording's).
  const readers = new Map<number, ReturnType<typeof express.text>>();
  const readerFor = (limit: number) => {
    let reader = readers.get(limit);
    if (!reader) {
      reader = express.text({ type: () => true, limit });
      readers.set(limit, reader);
    }
    return reader;
  };

  return function parseJsonBody(req: Request, res: Response, next: NextFunction): void {
    if (!['POST', 'PUT', 'PATCH'].includes(req.method) || !hasBody(req)) {
      req.body = undefined;
      next();
      return;
    }
    if (!isJsonContentType(req)) {
      next(new AppError('unsupported_media_type', 'Request bodies must be JSON (Content-Type: application/json)'));
      return;
    }
    let settled = false;
    // Counted from here, when the headers are in (the server's headersTimeout bounds those).
    const deadline = setTimeout(() => {
      settled = true;
      req.unpipe();
      req.pause();
      // The rest of the body may never come: answer, then drop the connection rather than reuse it.
      res.setHeader('Connection', 'close');
      res.once('finish', () => req.socket.destroy());
      next(
        new AppError(
          'request_timeout',
          `The request body did not arrive within ${Math.round(options.timeoutMs / 1000)} s`,
        ),
      );
    }, options.timeoutMs);
    readerFor(limitOf(req))(req, res, (err?: unknown) => {
      clearTimeout(deadline);
      if (settled) return;
      settled = true;
      if (err) {
        next(err);
        return;
      }
      const text = typeof req.body === 'string' ? req.body : '';
      try {
        req.body =
          text.trim() === ''
            ? undefined
            : JSON.parse(text, (key, value: unknown) => {
                if (FORBIDDEN_KEYS.has(key)) throw new ForbiddenKeyError(key, 'is not allowed');
                if (key.includes('\u0000'))
                  throw new ForbiddenKeyError(key.replaceAll('\u0000', '\\u0000'), 'must not contain NUL characters');
                // PostgreSQL cannot store NUL in text or jsonb; refuse it here rather than fail later.
                if (typeof value === 'string' && value.includes('\u0000'))
                  throw new ForbiddenKeyError(key || '(root)', 'must not contain NUL characters');
                return value;
              });
        next();
      } catch (parseError) {
        if (parseError instanceof ForbiddenKeyError) {
          next(
            new AppError('validation_error', `Request body: ${parseError.key} ${parseError.reason}`, [
              { path: parseError.key, message: parseError.reason, in: 'body' },
            ]),
          );
        } else {
          next(new AppError('invalid_json', 'Request body is not valid JSON'));
        }
      }
    });
  };
}
