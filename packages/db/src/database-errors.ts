import { AppError } from '@botfleet/core';

/**
 * A write refused by a unique constraint, whether it went through Prisma (P2002) or straight to
 * pg as a prepared statement (SQLSTATE 23505): callers should not need to know which path ran.
 */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'P2002' || code === '23505';
}

/**
 * Codes that mean "the database cannot serve this now; the same request may work shortly":
 * Prisma's for a server it cannot reach (P1001), a connect that timed out (P1002), a socket that
 * timed out (P1008: @prisma/adapter-pg's ETIMEDOUT), a closed connection (P1017), an exhausted
 * pool (P2024) and too many connections (P2037); PostgreSQL's SQLSTATEs, for the statements that
 * go straight to pg (queryPrepared): too many connections (53300), the server shutting down or
 * starting up (57P01-57P03) and the whole connection-exception class 08.
 */
const UNREACHABLE_CODES = new Set([
  'P1001',
  'P1002',
  'P1008',
  'P1017',
  'P2024',
  'P2037',
  '53300',
  '57P01',
  '57P02',
  '57P03',
]);
const CONNECTION_EXCEPTION_SQLSTATE = /^08[0-9A-Z]{3}$/;

/**
 * What the driver throws as plain Errors, without a code, when the database is cut off or
 * answers nothing (reproduced against a loopback forwarder that stops forwarding): the adapter
 * passes them through unconverted. pg's client when a connection dies ("Connection terminated
 * unexpectedly") or its connect times out ("... due to connection timeout"), pg-pool when no
 * connection came within connectionTimeoutMillis ("timeout exceeded when trying to connect"), a
 * client left broken by an earlier error, and a query past its read timeout; Prisma's own
 * message for a server it cannot reach.
 */
const UNREACHABLE_MESSAGE =
  /^Connection terminated|^timeout exceeded when trying to connect|^Client has encountered a connection error|^Query read timeout|Can't reach database/;

/** Whether the error, or one it was caused by, says the database cannot be reached now. */
function isDatabaseUnreachable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    const candidate = e as { code?: unknown; message?: unknown; cause?: unknown };
    if (
      typeof candidate.code === 'string' &&
      (UNREACHABLE_CODES.has(candidate.code) || CONNECTION_EXCEPTION_SQLSTATE.test(candidate.code))
    )
      return true;
    if (typeof candidate.message === 'string' && UNREACHABLE_MESSAGE.test(candidate.message)) return true;
    e = candidate.cause;
  }
  return false;
}

/**
 * A database error in the domain's words, so no caller (the API's error handler) needs Prisma's
 * or PostgreSQL's codes: a row a write expected is gone (P2025) is `not_found`, a unique
 * violation `conflict`, an unreachable or timed-out database `unavailable` (503 with
 * Retry-After). Null for any other error.
 */
export function translateDatabaseError(err: unknown): AppError | null {
  if ((err as { code?: unknown } | null)?.code === 'P2025') return new AppError('not_found', 'Resource not found');
  if (isUniqueViolation(err)) return new AppError('conflict', 'Resource already exists');
  if (isDatabaseUnreachable(err)) {
    return new AppError('unavailable', 'A backing service is unavailable; retry shortly');
  }
  return null;
}
