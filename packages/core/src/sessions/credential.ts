import { z } from 'zod';

/*
 * A credential is a login for steps to fill: a username, a password and a TOTP secret, the last
 * two write-only (docs/sessions.md). Steps never hold the values: a `fill` step's value names
 * the credential and the field, and the worker resolves it when the step runs.
 */

export const CREDENTIAL_FIELDS = ['username', 'password', 'totp'] as const;
export const CredentialFieldSchema = z
  .enum(CREDENTIAL_FIELDS)
  .describe('username, password, or totp: the RFC 6238 code current when the step runs');
export type CredentialField = z.infer<typeof CredentialFieldSchema>;

/** Where a `fill` step takes its value from instead of text. */
export const CredentialValueSchema = z
  .strictObject({
    credential: z.string().min(1).max(64).describe('The credential’s id (crd_...)'),
    field: CredentialFieldSchema,
  })
  .meta({ id: 'CredentialValue' });
export type CredentialValue = z.infer<typeof CredentialValueSchema>;

export const isCredentialValue = (value: unknown): value is CredentialValue =>
  typeof value === 'object' && value !== null && 'credential' in value && 'field' in value;

/** Which fields a stored credential can give. */
export interface CredentialFields {
  username: boolean;
  password: boolean;
  totp: boolean;
}

/** The code (and the first word of the message) of a fill refused for where it would go. */
export const CREDENTIAL_ORIGIN_MISMATCH = 'credential_origin_mismatch';
export const MAX_CREDENTIAL_ORIGINS = 20;

/**
 * `text` as a credential origin (`https://host[:port]`, as URL.origin spells it: lower-case host,
 * no default port), or why it is not one. A path, query, fragment or user info is refused rather
 * than dropped: whoever typed it may think it narrows where the secret goes, and it does not.
 * `http:` only when `allowHttp` (ALLOW_PRIVATE_NETWORK: test sites on loopback).
 */
export function normalizeCredentialOrigin(
  text: string,
  allowHttp: boolean,
): { origin: string; problem?: undefined } | { origin?: undefined; problem: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem: 'is not a URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { problem: 'must start with https://' };
  if (url.protocol === 'http:' && !allowHttp) {
    return { problem: 'must start with https:// (http:// only while ALLOW_PRIVATE_NETWORK=true)' };
  }
  if (url.username !== '' || url.password !== '') return { problem: 'must not carry a user name or password' };
  if (url.hostname === '') return { problem: 'has no host' };
  // `new URL` turns a bare origin's empty path into '/', and drops an empty `?` or `#`: read the text for those.
  if (url.pathname !== '/' || /[?#]/.test(text)) {
    return { problem: 'must be an origin only (scheme, host and port), without a path, query or fragment' };
  }
  return { origin: url.origin };
}

/** The origin of a frame's URL; "null" for one without (about:blank, data:), which no credential lists. */
export function originOfUrl(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'null';
  }
}

/**
 * The one check every fill from a credential goes through before its value is opened: the frame
 * the target element lives in, and every frame above it up to the page, must each be at one of
 * the credential's origins, matched exactly on scheme, host and port (see docs/sessions.md). The
 * frames above count because a page that frames the login form can navigate that frame, or take
 * the focus, between the check and the last keystroke. A credential stored before origins existed
 * has none, and fills nowhere until an admin sets them. Throws an Error whose message starts with
 * CREDENTIAL_ORIGIN_MISMATCH and names the credential and the origins, never a value.
 *
 * `frameOrigins`: the field's frame first, then each parent, the page's frame last.
 */
export function assertCredentialOrigin(
  credentialId: string,
  origins: readonly string[],
  frameOrigins: readonly string[],
): void {
  if (origins.length === 0) {
    throw new Error(
      `${CREDENTIAL_ORIGIN_MISMATCH}: credential ${credentialId} has no origins, so it fills nowhere; ` +
        'an admin key must set its origins first',
    );
  }
  const foreign = frameOrigins.findIndex((origin) => !origins.includes(origin));
  if (foreign === -1) return;
  const where = foreign === 0 ? 'the field is in a frame at' : "the field's frame is inside a frame at";
  throw new Error(
    `${CREDENTIAL_ORIGIN_MISMATCH}: credential ${credentialId} fills only on ${origins.join(', ')}; ` +
      `${where} ${frameOrigins[foreign]}`,
  );
}
