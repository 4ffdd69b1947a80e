import type { z } from 'zod';
import { toValidationIssues, validationError } from './validation-issues';

/** Parses one part of a request (path, query, body); failures are a 400 naming each field. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: 'path' | 'query' | 'body'): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw validationError(toValidationIssues(result.error), where);
}
