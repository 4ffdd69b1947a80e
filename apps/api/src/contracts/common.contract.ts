import { parseCursor } from '@botfleet/core';
import { z } from 'zod';
import type { RouteResponseSpec } from '../http/route';

/*
 * The shapes every resource's contract shares: the error envelope, list and page envelopes, and
 * the pagination query. A schema the OpenAPI document shares as a component names itself with
 * `.meta({ id })` where it is declared, in its resource's contract file; the document collects
 * whichever ones the routes use, so there is no list of components to keep in step.
 */

/*
 * Examples are checked against their schema by openapi-lint.test.ts (Redocly
 * no-invalid-schema-examples): a field made required on a schema needs a value in its example too.
 */
export const ErrorEnvelopeSchema = z
  .object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      details: z.unknown().optional(),
    }),
  })
  .meta({ id: 'Error', examples: [{ error: { code: 'not_found', message: 'Bot not found' } }] });

/** A `cursor` query parameter, decoded at the edge so nothing unchecked reaches SQL. */
const CursorSchema = z
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

/** The envelope of every paginated answer (views/collection.view.ts builds it). */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), nextCursor: z.string().nullable() });
}

/** The envelope of every list answer. */
export function listOf<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item) });
}

/**
 * The 403 of every route that changes a bot's steps, scripts, manifest or targetUrl, beside the
 * one a read key gets: services/bot-login-guard.ts decides it.
 */
export const BOT_LOGIN_FORBIDDEN = {
  description:
    'The key lacks the write permission; or it is a write key, and the bot uses a saved login (a profile in its ' +
    'manifest, a credential its steps fill from) or the change would give it one, which only an admin key may ' +
    'do. `details`: `{ requires: "admin", because: "bot_uses_login" | "change_attaches_login", logins: ' +
    '{ profileId, credentialIds } }`. Write keys still run such a bot and read its outputs.',
  code: 'forbidden',
} as const satisfies RouteResponseSpec;
