/**
 * Splits a PostgreSQL URL into the database name and a URL for another database on the same
 * server, because CREATE/DROP DATABASE must run while connected to some other database.
 */
export function databaseNameOf(databaseUrl: string): string {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.replace(/^\//, ''));
  if (name === '') throw new Error('The database URL names no database');
  return name;
}

export function withDatabase(databaseUrl: string, database: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${encodeURIComponent(database)}`;
  return url.toString();
}
