import { createHash } from 'node:crypto';

/**
 * Names for prepared statements, so PostgreSQL parses and plans each query text once per
 * connection instead of on every call (an unnamed statement is planned every time).
 *
 * The same text always gets the same name (pg refuses one name for two texts): statementName,
 * a hash of the text. Texts that vary with their input (`IN ($1, $2, ...)` lists of any length)
 * would grow each connection's statement cache without bound, so only the first `limit`
 * distinct texts are named; the rest run unnamed, as before.
 */
export function createStatementNamer(limit = 500): (query: { sql: string }) => string {
  const names = new Map<string, string>();
  return ({ sql }) => {
    const known = names.get(sql);
    if (known !== undefined) return known;
    if (names.size >= limit) return ''; // pg treats an empty name as an unnamed statement
    const name = statementName(sql);
    names.set(sql, name);
    return name;
  };
}

/**
 * The one naming scheme of prepared statements, for Prisma's queries (above) and the hot
 * statements sent to pg directly (prepared-statement.ts) alike: both share a connection's
 * statement cache, where one name must always mean one text. A full SHA-1 (43 characters with the
 * prefix) stays within PostgreSQL's 63-byte identifiers.
 */
export function statementName(text: string): string {
  return `bf_${createHash('sha1').update(text).digest('hex')}`;
}
