import { AppError } from '@botfleet/core';
import type { z } from 'zod';
import { describeIssues, toValidationIssues } from './validation-issues';

/** Parses one part of a request (path, query, body); failures are a 400 naming each field. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: 'path' | 'query' | 'body'): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = toValidationIssues(result.error).map((issue) => ({ ...issue, in: where }));
  throw new AppError('validation_error', describeIssues(issues), issues);
}
