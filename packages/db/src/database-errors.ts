import { AppError } from '@botfleet/core';

/**
 * A write refused by a unique constraint, whether it went through Prisma (P2002) or straight to
 * pg as a prepared statement (SQLSTATE 23505): callers should not need to know which path ran.
 */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'P2002' || code === '23505';
}

/** Prisma's codes for a database it cannot reach (P1001), a closed connection (P1017), an exhausted pool (P2024). */
const UNREACHABLE_CODES = new Set(['P1001', 'P1017', 'P2024']);

/** Whether the error, or one it was caused by, says the database cannot be reached now. */
function isDatabaseUnreachable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    const candidate = e as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof candidate.code === 'string' && UNREACHABLE_CODES.has(candidate.code)) return true;
    if (typeof candidate.message === 'string' && candidate.message.includes("Can't reach database")) return true;
    e = candidate.cause;
  }
  return false;
}

/**
 * A database error in the domain's words, so no caller (the API's error handler) needs Prisma's
 * or PostgreSQL's codes: a row a write expected is gone (P2025) is `not_found`, a unique
 * violation `conflict`, an unreachable database `unavailable`. Null for any other error.
 */
export function translateDatabaseError(err: unknown): AppError | null {
  if ((err as { code?: unknown } | null)?.code === 'P2025') return new AppError('not_found', 'Resource not found');
  if (isUniqueViolation(err)) return new AppError('conflict', 'Resource already exists');
  if (isDatabaseUnreachable(err)) {
    return new AppError('unavailable', 'A backing service is unavailable; retry shortly');
  }
  return null;
}
