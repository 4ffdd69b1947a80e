import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lowercase

function encodeTime(ms: number): string {
  let out = '';
  let n = ms;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[n % 32] + out;
    n = Math.floor(n / 32);
  }
  return out;
}

/**
 * An opaque, prefixed, time-sortable identifier such as `bot_01jd3k...`: the prefix tells a
 * human what the id is, the time part keeps btree inserts local, 80 random bits keep it unique.
 */
export function newId(prefix: string): string {
  const random = randomBytes(16);
  let tail = '';
  for (let i = 0; i < 16; i++) tail += ALPHABET[random[i]! % 32];
  return `${prefix}_${encodeTime(Date.now())}${tail}`;
}
