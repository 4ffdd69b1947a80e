import { z } from 'zod';
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
