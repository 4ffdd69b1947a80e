/**
 * A write refused by a unique constraint, whether it went through Prisma (P2002) or straight to
 * pg as a prepared statement (SQLSTATE 23505): callers should not need to know which path ran.
 */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'P2002' || code === '23505';
}
