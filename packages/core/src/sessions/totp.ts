import { Secret, TOTP, URI } from 'otpauth';

/*
 * Time-based one-time passwords (RFC 6238) for a credential's second factor, through the
 * `otpauth` library (RFC 4226/6238 and the Key Uri Format, kept up to date and tested against the
 * RFCs' vectors). This module is the one place botfleet reads a TOTP secret or an otpauth URI.
 */

export const TOTP_ALGORITHMS = ['SHA1', 'SHA256', 'SHA512'] as const;
export type TotpAlgorithm = (typeof TOTP_ALGORITHMS)[number];

/** Everything a code needs; stored sealed, never shown. `secret` is base32 without padding. */
export interface TotpSettings {
  secret: string;
  algorithm: TotpAlgorithm;
  digits: number;
  period: number;
}

/** The defaults of the Key Uri Format and of nearly every site: SHA-1, 6 digits, 30 s. */
const DEFAULTS = { algorithm: 'SHA1', digits: 6, period: 30 } as const;

/** A secret or URI that cannot give codes; the message never repeats the secret. */
export class InvalidTotpError extends Error {}

/** Authenticator apps show secrets in groups, in either case; RFC 4648 base32 without them. */
function normalizeBase32(input: string): string {
  return input.replace(/[\s-]/g, '').replace(/=+$/, '').toUpperCase();
}

function checkedSecret(base32: string): string {
  const secret = normalizeBase32(base32);
  if (!/^[A-Z2-7]+$/.test(secret)) throw new InvalidTotpError('must be base32 (letters A-Z and digits 2-7)');
  const bytes = Secret.fromBase32(secret).bytes.length;
  // RFC 4226 asks for at least 128 bits; 80 (16 characters) is the least sites really issue.
  if (bytes < 10) throw new InvalidTotpError('is too short: a TOTP secret has at least 16 base32 characters');
  if (bytes > 128) throw new InvalidTotpError('is too long: at most 204 base32 characters');
  return secret;
}

/** Settings from a bare base32 secret, with the usual defaults. */
export function totpFromSecret(base32: string): TotpSettings {
  return { secret: checkedSecret(base32), ...DEFAULTS };
}

/** Settings from an `otpauth://totp/...?secret=...` URI (algorithm, digits and period as it says). */
export function totpFromUri(uri: string): TotpSettings {
  if (!/^otpauth:\/\/totp\//i.test(uri)) throw new InvalidTotpError('must be an otpauth://totp/ URI');
  let parsed: ReturnType<typeof URI.parse>;
  try {
    parsed = URI.parse(uri);
  } catch {
    // The library's message may quote the URI, secret and all.
    throw new InvalidTotpError('is not a valid otpauth URI (it needs at least a secret parameter)');
  }
  if (!(parsed instanceof TOTP)) throw new InvalidTotpError('must be an otpauth://totp/ URI');
  const algorithm = TOTP_ALGORITHMS.find((a) => a === parsed.algorithm);
  if (!algorithm) throw new InvalidTotpError(`algorithm must be one of ${TOTP_ALGORITHMS.join(', ')}`);
  if (!Number.isInteger(parsed.digits) || parsed.digits < 6 || parsed.digits > 10)
    throw new InvalidTotpError('digits must be 6 to 10');
  if (!Number.isInteger(parsed.period) || parsed.period < 1 || parsed.period > 3600)
    throw new InvalidTotpError('period must be 1 to 3600 seconds');
  return { secret: checkedSecret(parsed.secret.base32), algorithm, digits: parsed.digits, period: parsed.period };
}

/** The code current at `at` (Unix ms). */
export function totpCode(settings: TotpSettings, at: number = Date.now()): string {
  return new TOTP({
    secret: Secret.fromBase32(settings.secret),
    algorithm: settings.algorithm,
    digits: settings.digits,
    period: settings.period,
  }).generate({ timestamp: at });
}

/** How long (ms) the code current at `at` stays current. */
export function totpRemainingMs(settings: TotpSettings, at: number = Date.now()): number {
  const periodMs = settings.period * 1000;
  return periodMs - (at % periodMs);
}
