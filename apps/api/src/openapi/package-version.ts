import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The version of botfleet: the root package.json's, which the OpenAPI document carries as
 * `info.version`. Found by walking up to the workspace root (the package.json with `workspaces`),
 * so the same code works from src/ under tsx and from dist/ in production, where importing a file
 * outside the package's rootDir is not possible.
 */
export function packageVersion(from: string = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown; workspaces?: unknown };
      if (pkg.workspaces !== undefined && typeof pkg.version === 'string') return pkg.version;
    }
    if (dirname(dir) === dir) throw new Error(`No workspace root package.json above ${from}`);
  }
}
