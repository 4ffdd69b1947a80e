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

/*
 * Random bytes come from the CSPRNG in blocks: a randomBytes call per id cost more than the rest
 * of newId (on the trigger path, the API's hottest write). Each byte is used once.
 */
const RANDOM_BLOCK_BYTES = 4096;
let randomBlock = Buffer.alloc(0);
let randomOffset = 0;

/**
 * An opaque, prefixed, time-sortable identifier such as `bot_01jd3k...`: the prefix tells a
 * human what the id is, the time part keeps btree inserts local, 80 random bits keep it unique.
 */
export function newId(prefix: string): string {
  if (randomOffset + 16 > randomBlock.length) {
    randomBlock = randomBytes(RANDOM_BLOCK_BYTES);
    randomOffset = 0;
  }
  let tail = '';
  for (let i = 0; i < 16; i++) tail += ALPHABET[randomBlock[randomOffset + i]! % 32];
  randomOffset += 16;
  return `${prefix}_${encodeTime(Date.now())}${tail}`;
}

const ID_TAIL = '[0-9a-hjkmnp-tv-z]{26}';
const ANY_ID = new RegExp(`^[a-z]{3}_${ID_TAIL}$`);

/**
 * Whether a string has the shape newId gives (`prefix_` + 26 base32 characters). A value that
 * does not can name nothing, so callers answer "not found" without asking the database.
 */
export function isIdOf(prefix: string, value: string): boolean {
  return value.length === prefix.length + 27 && value.startsWith(`${prefix}_`) && ANY_ID.test(value);
}

/** Whether a string has the shape of any id newId gives. */
export function isAnyId(value: string): boolean {
  return ANY_ID.test(value);
}
