import { createHash } from 'node:crypto';

/**
 * Names for prepared statements, so PostgreSQL parses and plans each query text once per
 * connection instead of on every call (an unnamed statement is planned every time).
 *
 * The same text always gets the same name (pg refuses one name for two texts), derived from a
 * hash of the text. Texts that vary with their input (`IN ($1, $2, ...)` lists of any length)
 * would grow each connection's statement cache without bound, so only the first `limit`
 * distinct texts are named; the rest run unnamed, as before.
 */
export function createStatementNamer(limit = 500): (query: { sql: string }) => string {
  const names = new Map<string, string>();
  return ({ sql }) => {
    const known = names.get(sql);
    if (known !== undefined) return known;
    if (names.size >= limit) return ''; // pg treats an empty name as an unnamed statement
    const name = `bf_${createHash('sha1').update(sql).digest('hex')}`;
    names.set(sql, name);
    return name;
  };
}
