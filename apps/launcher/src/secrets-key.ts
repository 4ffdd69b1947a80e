import { decodeKey, type Logger } from '@botfleet/core';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * SECRETS_KEY when set; otherwise a development key generated once and kept in the data
 * directory, with a warning, so a first `npm start` works and restarts can still decrypt.
 */
export function resolveSecretsKey(configured: string | undefined, dataDir: string, logger: Logger): Buffer {
  if (configured) return decodeKey(configured)!;
  const file = join(dataDir, 'secrets.key');
  if (existsSync(file)) {
    const key = decodeKey(readFileSync(file, 'utf8').trim());
    if (!key) throw new Error(`${file} does not hold a 32-byte key; delete it or set SECRETS_KEY`);
    logger.warn({ file }, 'SECRETS_KEY is not set; using the development key from the data directory');
    return key;
  }
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  logger.warn({ file }, 'SECRETS_KEY is not set; generated a development key (set SECRETS_KEY in production)');
  return key;
}
