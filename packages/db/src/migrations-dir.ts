import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * Finds `prisma/migrations` by walking up from `startDir`, so the CLI and tests work the same
 * whether run from the repo root, a package folder, or a compiled copy of this file.
 */
export function findMigrationsDir(startDir: string = __dirname): string {
  let dir = path.resolve(startDir);
  for (;;) {
    const candidate = path.join(dir, 'prisma', 'migrations');
    if (existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`No prisma/migrations directory above ${startDir}`);
    dir = parent;
  }
}
