import { z } from 'zod';
import { parseCursor } from '../cursor';
import { judgeNavigableUrl } from '../navigable-url';

/**
 * An absolute http(s) URL (a bot's targetUrl, webhook URLs): the same judgement as every URL a
 * run opens (navigable-url.ts), without about:blank or relative forms.
 */
export const HttpUrlSchema = z
  .string()
  .max(2048)
  .refine((value) => judgeNavigableUrl(value).allowed, 'must be an absolute http(s) URL');

/** Unix milliseconds, as every timestamp in the API. */
export const TimestampSchema = z.number().int().describe('Unix time in milliseconds');

const RESERVED_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

export const IdentifierSchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'must be an identifier (letters, digits, _; max 64)')
  // These names would reach Object.prototype when used as keys of the extracted data.
  .refine((name) => !RESERVED_NAMES.has(name), 'is a reserved name');

/** A `cursor` query parameter, decoded at the edge so nothing unchecked reaches SQL. */
export const CursorSchema = z
  .string()
  .max(200)
  .transform((value, ctx) => {
    const cursor = parseCursor(value);
    if (cursor) return cursor;
    ctx.addIssue({ code: 'custom', message: 'is not a cursor returned by this API' });
    return z.NEVER;
  })
  .describe('nextCursor from the previous page');

export const PaginationQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: CursorSchema.optional(),
});
export type PaginationQuery = z.infer<typeof PaginationQuerySchema>;

export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), nextCursor: z.string().nullable() });
}

export function listOf<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item) });
}

export const ErrorEnvelopeSchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.unknown().optional(),
  }),
});
