import { AppError, type ValidationIssue } from '@botfleet/core';
import type { z } from 'zod';

/** Flattens zod issues into the envelope's `details`, one entry per offending field. */
export function toValidationIssues(error: z.ZodError, prefix: string[] = []): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const issue of error.issues) {
    const base = [...prefix, ...issue.path.map(String)];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) issues.push({ path: [...base, key].join('.'), message: 'is not a known field' });
    } else {
      issues.push({ path: base.join('.') || '(root)', message: issue.message });
    }
  }
  return issues;
}

/** The 400 for these issues, each tagged with where in the request it was found. */
export function validationError(
  issues: ValidationIssue[],
  where: 'path' | 'query' | 'body' | 'header',
  message = describeIssues(issues),
): AppError {
  return new AppError(
    'validation_error',
    message,
    issues.map((issue) => ({ ...issue, in: where })),
  );
}

export function describeIssues(issues: ValidationIssue[]): string {
  const shown = issues.slice(0, 3).map((i) => `${i.path}: ${i.message}`);
  return `Invalid request: ${shown.join('; ')}${issues.length > 3 ? ` (+${issues.length - 3} more)` : ''}`;
}
