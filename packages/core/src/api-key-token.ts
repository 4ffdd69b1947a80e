import { createHash, randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PATTERN = /^bf_[0-9A-Za-z]{40,100}$/;

/** A new API key: `bf_` + 43 base62 characters (~256 bits). Shown once, stored only as a hash. */
export function generateApiKey(): string {
  // Rejection sampling keeps every base62 character equally likely.
  let out = '';
  while (out.length < 43) {
    for (const byte of randomBytes(64)) {
      if (byte < 248 && out.length < 43) out += BASE62[byte % 62];
    }
  }
  return `bf_${out}`;
}

export const looksLikeApiKey = (value: string): boolean => KEY_PATTERN.test(value);

/** Keys carry 256 random bits, so a fast unsalted hash is enough (no password-style KDF needed). */
export const hashApiKey = (key: string): string => createHash('sha256').update(key).digest('hex');

export const apiKeyPrefix = (key: string): string => key.slice(0, 10);
