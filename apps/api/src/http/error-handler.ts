import { AppError, type ErrorCode, type Logger } from '@botfleet/core';
import { translateDatabaseError } from '@botfleet/db';
import type { NextFunction, Request, Response } from 'express';
import { HTTP_STATUS_OF } from './error-status';

interface HttpLikeError {
  name?: string;
  type?: string;
  status?: number;
  statusCode?: number;
  expose?: boolean;
  code?: string;
  message?: string;
}

/** body-parser's own errors (size, encoding) mapped to the contract's codes. */
function fromBodyParser(err: HttpLikeError): AppError | null {
  switch (err.type) {
    case 'entity.too.large':
      return new AppError('payload_too_large', 'Request body is too large');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('unsupported_media_type', 'Unsupported body encoding or charset');
    case 'request.aborted':
    case 'request.size.invalid':
      return new AppError('invalid_json', 'Request body was incomplete');
    default:
      return null;
  }
}

/** The code for an error status that Express or a library attached (http-errors convention). */
const CODE_FOR_STATUS: Partial<Record<number, ErrorCode>> = {
  404: 'not_found',
  408: 'request_timeout',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};

/**
 * Any error that carries a 4xx status is the client's fault and gets an envelope, whatever threw
 * it: a malformed percent-escape in the path (Express's URIError), a body that fails to inflate.
 * Only http-errors' exposable messages are passed on; others could describe internals.
 */
function fromClientErrorStatus(err: HttpLikeError): AppError | null {
  const status = err.status ?? err.statusCode;
  if (typeof status !== 'number' || status < 400 || status > 499) return null;
  if (err.name === 'URIError') {
    return new AppError('validation_error', 'The path has a malformed percent-escape', [
      { path: '(path)', message: 'is not valid percent-encoding', in: 'path' },
    ]);
  }
  const message = err.expose === true && typeof err.message === 'string' ? err.message : 'Malformed request';
  return new AppError(CODE_FOR_STATUS[status] ?? 'bad_request', message);
}

const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT']);

/**
 * ioredis's words for "no master to talk to", in every mode: a producer's refused offline queue
 * (standalone, and a Cluster not ready), a closed connection, a cluster without its slots or in
 * the middle of a failover, sentinels that name no reachable master, a demoted master.
 */
const REDIS_AWAY =
  /enableOfflineQueue|Connection is closed|ECONNREFUSED|CLUSTERDOWN|Failed to refresh slots cache|All sentinels are unreachable|^READONLY/;

/**
 * A connection refused or cut, or Redis down: the client may retry later. The database's own
 * errors arrive already translated (translateDatabaseError).
 */
function isDependencyDown(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    const candidate = e as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown };
    if (typeof candidate.code === 'string' && UNAVAILABLE_CODES.has(candidate.code)) return true;
    if (candidate.name === 'MaxRetriesPerRequestError' || candidate.name === 'ClusterAllFailedError') return true;
    if (typeof candidate.message === 'string' && REDIS_AWAY.test(candidate.message)) {
      return true;
    }
    e = candidate.cause;
  }
  return false;
}

function toAppError(err: unknown): AppError | null {
  if (err instanceof AppError) return err;
  const httpish = err as HttpLikeError;
  const mapped = fromBodyParser(httpish);
  if (mapped) return mapped;
  const clientError = fromClientErrorStatus(httpish ?? {});
  if (clientError) return clientError;
  // The database's errors in the domain's words (db knows its driver's codes; the API does not).
  const fromDatabase = translateDatabaseError(err);
  if (fromDatabase) return fromDatabase;
  if (isDependencyDown(err)) return new AppError('unavailable', 'A backing service is unavailable; retry shortly');
  return null;
}

export function sendError(res: Response, code: ErrorCode, message: string, details?: unknown): void {
  const error: Record<string, unknown> = { code, message };
  if (details !== undefined) error.details = details;
  if (code === 'unauthorized') res.setHeader('WWW-Authenticate', 'Bearer');
  if (code === 'unavailable') res.setHeader('Retry-After', '5');
  const retryAfter = (details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
  if (code === 'rate_limited' && typeof retryAfter === 'number') res.setHeader('Retry-After', String(retryAfter));
  res.status(HTTP_STATUS_OF[code]).json({ error });
}

/** The single error handler, last in the chain: AppErrors become the envelope, the rest a 500. */
export function errorHandler(logger: Logger) {
  // Express recognises error handlers by their four parameters.
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const appError = toAppError(err);
    if (res.headersSent) {
      logger.error({ err, requestId: req.id }, 'error after response started');
      res.destroy();
      return;
    }
    if (appError) {
      if (HTTP_STATUS_OF[appError.code] >= 500)
        logger.warn({ requestId: req.id, code: appError.code, err }, appError.message);
      sendError(res, appError.code, appError.message, appError.details);
      return;
    }
    logger.error({ err, requestId: req.id, method: req.method, path: req.path }, 'unhandled error');
    sendError(res, 'internal_error', 'Internal server error', { requestId: req.id });
  };
}
