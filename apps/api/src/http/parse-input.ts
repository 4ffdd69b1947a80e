import { AppError, type ValidationIssue } from '@botfleet/core';
import type { z } from 'zod';
import { toValidationIssues, validationError } from './validation-issues';

/** Marks a zod issue as "this value can name nothing": the request answers 404, not 400. */
export const CANNOT_EXIST = 'cannotExist';

/**
 * Where a query string carries NUL, if anywhere. PostgreSQL's text cannot hold it, so a query
 * value with one is refused here for every route (as the JSON body parser does for bodies)
 * rather than fail as a 500 where a repository binds it.
 */
function nulIn(value: unknown, path: string[]): ValidationIssue | null {
  if (typeof value === 'string') {
    return value.includes('\u0000')
      ? { path: path.join('.') || '(root)', message: 'must not contain NUL characters' }
      : null;
  }
  if (value === null || typeof value !== 'object') return null;
  for (const [key, inner] of Object.entries(value)) {
    const found = key.includes('\u0000')
      ? { path: [...path, key.replaceAll('\u0000', '\\u0000')].join('.'), message: 'must not contain NUL characters' }
      : nulIn(inner, [...path, key]);
    if (found) return found;
  }
  return null;
}

/** Parses one part of a request (path, query, body); failures are a 400 naming each field. */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: 'path' | 'query' | 'body',
): z.output<S> {
  const nul = where === 'query' ? nulIn(value, []) : null;
  if (nul) throw validationError([nul], where);
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw validationError(toValidationIssues(result.error), where);
}

/**
 * Parses path parameters. When every problem is an id that cannot exist, returns the 404 to
 * answer once the rest of the request has been checked (who you are, then what you sent, then
 * what exists), instead of throwing a 400.
 */
export function parsePath<S extends z.ZodType>(
  schema: S,
  value: unknown,
): { params: z.output<S>; notFound: null } | { params: null; notFound: AppError } {
  const result = schema.safeParse(value);
  if (result.success) return { params: result.data, notFound: null };
  const issues = result.error.issues;
  const cannotExist = issues.every(
    (issue) =>
      issue.code === 'custom' && (issue.params as Record<string, unknown> | undefined)?.[CANNOT_EXIST] === true,
  );
  if (cannotExist) return { params: null, notFound: new AppError('not_found', issues[0]!.message) };
  throw validationError(toValidationIssues(result.error), 'path');
}

/**
 * Parses the headers a route declares, each looked up by its documented name whatever case the
 * client used. Failures are a 400 naming each header, in the words the API always used for them
 * ("Invalid Idempotency-Key header").
 */
export function parseHeaders<S extends z.ZodObject>(
  schema: S,
  header: (name: string) => string | undefined,
): z.output<S> {
  const given: Record<string, string> = {};
  for (const name of Object.keys(schema.shape)) {
    const value = header(name);
    if (value !== undefined) given[name] = value;
  }
  const result = schema.safeParse(given);
  if (result.success) return result.data;
  const issues = toValidationIssues(result.error);
  const names = [...new Set(issues.map((issue) => issue.path))];
  throw validationError(issues, 'header', `Invalid ${names.join(', ')} header${names.length > 1 ? 's' : ''}`);
}
