import { resolve } from 'node:path';

/** The repository root, found from this file so commands work from any working directory. */
export const REPO_ROOT = resolve(__dirname, '../../..');
export const MIGRATIONS_DIR = resolve(REPO_ROOT, 'prisma/migrations');
