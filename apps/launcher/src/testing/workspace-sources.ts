import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from '../repo-paths';

/*
 * The workspaces' TypeScript sources, parsed once per test file, for the house-rules checks
 * (house-rules.test.ts): which files exist, what each imports, and the calls it makes.
 */

/** Folders that hold no hand-written source: build output, generated clients, installed packages. */
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'generated']);

export interface SourceFile {
  /** Relative to the repository root, with forward slashes: `apps/worker/src/start-worker.ts`. */
  path: string;
  /** A test, or a helper only tests use (`src/testing/`, a workspace's `testing.ts`, the test kit). */
  testOnly: boolean;
  ast: ts.SourceFile;
}

function tsFilesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) ? [] : tsFilesUnder(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every workspace folder (`apps/api`, `packages/core`, ...), from the root manifest's `workspaces`. */
export function workspaceDirs(): string[] {
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { workspaces: string[] };
  return manifest.workspaces.flatMap((pattern) => {
    const parent = pattern.replace(/\/\*$/, '');
    return readdirSync(join(REPO_ROOT, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(REPO_ROOT, parent, entry.name, 'package.json')))
      .map((entry) => `${parent}/${entry.name}`);
  });
}

/** The sources of every workspace: `src/**`, plus the `testing.ts` and `browser.ts` entries at its root. */
export function readWorkspaceSources(): SourceFile[] {
  return workspaceDirs().flatMap((workspace) => {
    const root = join(REPO_ROOT, workspace);
    const entries = ['testing.ts', 'browser.ts'].map((name) => join(root, name)).filter((file) => existsSync(file));
    return [...tsFilesUnder(join(root, 'src')), ...entries].map((file) =>
      parseSource(relative(REPO_ROOT, file).split('\\').join('/'), readFileSync(file, 'utf8')),
    );
  });
}

/** One file's source, parsed; `path` is repository-relative (tests of the rules pass made-up ones). */
export function parseSource(path: string, text: string): SourceFile {
  return {
    path,
    testOnly:
      /\.test\.tsx?$/.test(path) ||
      /\/(src\/testing\/|testing\.ts$)/.test(path) ||
      path.startsWith('packages/testkit/'),
    ast: ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true),
  };
}

/** Every call `<receiver>.<method>(...)` in a file, with the receiver's source text. */
export function methodCalls(file: SourceFile): { method: string; receiver: string; line: number }[] {
  const calls: { method: string; receiver: string; line: number }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      calls.push({
        method: node.expression.name.text,
        receiver: node.expression.expression.getText(file.ast),
        line: file.ast.getLineAndCharacterOfPosition(node.getStart(file.ast)).line + 1,
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(file.ast);
  return calls;
}

/** Every identifier in a file (names used or declared), with its line. */
export function identifiers(file: SourceFile): { name: string; line: number }[] {
  const found: { name: string; line: number }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node))
      found.push({ name: node.text, line: file.ast.getLineAndCharacterOfPosition(node.getStart(file.ast)).line + 1 });
    ts.forEachChild(node, visit);
  };
  visit(file.ast);
  return found;
}

/** The constants a file declares at its top level (`const`, exported or not), with their lines. */
export function moduleConstants(file: SourceFile): { name: string; line: number }[] {
  return file.ast.statements.flatMap((statement) => {
    if (!ts.isVariableStatement(statement) || !(statement.declarationList.flags & ts.NodeFlags.Const)) return [];
    return statement.declarationList.declarations.flatMap((declaration) =>
      ts.isIdentifier(declaration.name)
        ? [
            {
              name: declaration.name.text,
              line: file.ast.getLineAndCharacterOfPosition(declaration.getStart(file.ast)).line + 1,
            },
          ]
        : [],
    );
  });
}

/** The module specifiers a file imports or re-exports from, `import type` included. */
export function importedSpecifiers(file: SourceFile): string[] {
  return file.ast.statements.flatMap((statement) => {
    if (
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
      statement.moduleSpecifier &&
      ts.isStringLiteral(statement.moduleSpecifier)
    )
      return [statement.moduleSpecifier.text];
    return [];
  });
}

/** What a workspace's manifest says about its entries. */
interface WorkspaceManifest {
  name: string;
  main?: string;
  exports?: Record<string, string | { default?: string }>;
}

/**
 * The file an import names, among `files` (repository-relative paths): a relative path, or a
 * workspace by its package name and entry (`@botfleet/db` -> its `main`, `@botfleet/db/state` ->
 * what its `exports` map gives the source, `@botfleet/db/testing` -> its `testing.ts`). Anything
 * else (node:, npm packages) is outside the graph: undefined.
 */
export function createImportResolver(
  files: readonly string[],
): (from: string, specifier: string) => string | undefined {
  const known = new Set(files);
  const candidates = (base: string) => [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`];
  const entries = new Map<string, string>();
  for (const workspace of workspaceDirs()) {
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, workspace, 'package.json'), 'utf8')) as WorkspaceManifest;
    entries.set(manifest.name, `${workspace}/${(manifest.main ?? 'src/index.ts').replace(/^\.\//, '')}`);
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      const source = typeof target === 'string' ? target : target.default;
      if (subpath !== '.' && source)
        entries.set(`${manifest.name}/${subpath.replace(/^\.\//, '')}`, `${workspace}/${source.replace(/^\.\//, '')}`);
    }
    // A subpath without an exports map is a file at the workspace's root (`testing.ts`).
    entries.set(`${manifest.name}/`, `${workspace}/`);
  }
  return (from, specifier) => {
    if (specifier.startsWith('.')) {
      const base = relative(REPO_ROOT, resolve(REPO_ROOT, dirname(from), specifier))
        .split('\\')
        .join('/');
      return candidates(base).find((candidate) => known.has(candidate));
    }
    const [scope, name, ...rest] = specifier.split('/');
    const entry = entries.get(specifier);
    if (entry) return known.has(entry) ? entry : undefined;
    const root = entries.get(`${scope}/${name}/`);
    if (!root || rest.length === 0) return undefined;
    return candidates(`${root}${rest.join('/')}`).find((candidate) => known.has(candidate));
  };
}
