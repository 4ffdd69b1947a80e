import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from './repo-paths';
import { findImportCycles } from './testing/import-cycles';
import {
  createImportResolver,
  identifiers,
  importedSpecifiers,
  methodCalls,
  moduleConstants,
  parseSource,
  readWorkspaceSources,
  workspaceDirs,
  type SourceFile,
} from './testing/workspace-sources';

/*
 * The house rules a reviewer would otherwise have to remember (CONTRIBUTING.md, "House rules";
 * ARCHITECTURE.md, "The decision flow" and "Where each concern lives"), checked over every
 * workspace's sources; `npm run bars` runs this file alone. Each rule over the sources is a
 * function of the parsed files, tried first on a made-up file it must refuse, so a rule that
 * stopped seeing anything would fail here too.
 */

const SOURCES = readWorkspaceSources();
const PRODUCTION = SOURCES.filter((file) => !file.testOnly);

/** `path:line: what`, the shape of every offence, so a failure says where to look. */
type Offence = string;

const under = (file: SourceFile, ...roots: string[]) =>
  roots.some((root) => file.path === root || file.path.startsWith(`${root}/`));

it('reads the sources of every workspace', () => {
  expect(workspaceDirs()).toEqual(expect.arrayContaining(['apps/worker', 'packages/core', 'packages/engine']));
  expect(PRODUCTION.length).toBeGreaterThan(300);
  expect(SOURCES.some((file) => file.path === 'apps/launcher/src/house-rules.test.ts')).toBe(true);
});

describe('jobs are moved only by the queue adapter', () => {
  /** The one file that moves, delays, promotes or removes a BullMQ job (ARCHITECTURE.md, "The decision flow"). */
  const JOB_MOVES = 'packages/queue/src/job-moves.ts';
  /** BullMQ's errors that tell a worker a job was moved, not completed. */
  const MOVE_ERRORS = new Set(['DelayedError', 'WaitingError']);
  /** Methods of a BullMQ Job or Queue that move a job between its states. */
  const MOVES = new Set([
    'moveToDelayed',
    'moveToWait',
    'moveToFailed',
    'moveToCompleted',
    'changeDelay',
    'promote',
    'promoteJobs',
  ]);
  /** `remove` and `retry` are common names; they move a job when called on one (or on its queue). */
  const JOB_OR_QUEUE = /job|queue/i;

  function jobMovesOutsideTheAdapter(files: readonly SourceFile[]): Offence[] {
    return files
      .filter((file) => file.path !== JOB_MOVES)
      .flatMap((file) => [
        ...identifiers(file)
          .filter(({ name }) => MOVE_ERRORS.has(name))
          .map(({ name, line }) => `${file.path}:${line}: ${name}`),
        ...methodCalls(file)
          .filter(
            ({ method, receiver }) =>
              MOVES.has(method) || ((method === 'remove' || method === 'retry') && JOB_OR_QUEUE.test(receiver)),
          )
          .map(({ method, receiver, line }) => `${file.path}:${line}: ${receiver}.${method}()`),
      ]);
  }

  it('refuses a processor that delays, promotes or removes a job itself', () => {
    const processor = parseSource(
      'apps/worker/src/example.processor.ts',
      [
        "import { DelayedError } from 'bullmq';",
        'async function run(job, queues) {',
        '  await job.moveToDelayed(Date.now() + 1000, job.token);',
        '  await (await queues.get("executions").getJob("x"))?.promote();',
        '  await queues.get("executions").remove("x");',
        '  await deps.artifactStore.remove(["key"]);',
        '  throw new DelayedError();',
        '}',
      ].join('\n'),
    );
    expect(jobMovesOutsideTheAdapter([processor])).toEqual([
      'apps/worker/src/example.processor.ts:1: DelayedError',
      'apps/worker/src/example.processor.ts:7: DelayedError',
      'apps/worker/src/example.processor.ts:3: job.moveToDelayed()',
      'apps/worker/src/example.processor.ts:4: (await queues.get("executions").getJob("x")).promote()',
      'apps/worker/src/example.processor.ts:5: queues.get("executions").remove()',
    ]);
  });

  it(`has no DelayedError, moveToDelayed, promote or remove of a job outside ${JOB_MOVES}`, () => {
    expect(existsSync(join(REPO_ROOT, JOB_MOVES))).toBe(true);
    expect(jobMovesOutsideTheAdapter(PRODUCTION)).toEqual([]);
  });
});

describe('retry and re-check policy lives in packages/engine', () => {
  /** A module constant about trying something again, or looking again later. */
  const POLICY_NAME = /re-?check|retr(y|ies)/i;
  /** An HTTP `Retry-After` value is what an answer tells its client, not when botfleet tries again. */
  const HTTP_RETRY_AFTER = /retry_?after/i;
  /**
   * Where such a constant may be: the engine (its home); core, whose config.ts holds every
   * setting's default, which the engine receives as settings; the launcher, which restarts
   * processes, not jobs; the live streams, whose `retry:` tells a browser when to reconnect; and
   * the clients (SDK, CLI, console), which retry their own requests.
   */
  const OUTSIDE_THE_RULE = [
    'packages/engine',
    'packages/core',
    'apps/launcher',
    'apps/api/src/live',
    'packages/sdk',
    'apps/cli',
    'apps/console',
  ];

  function policyConstantsOutsideTheEngine(files: readonly SourceFile[]): Offence[] {
    return files
      .filter((file) => !under(file, ...OUTSIDE_THE_RULE))
      .flatMap((file) =>
        moduleConstants(file)
          .filter(({ name }) => POLICY_NAME.test(name) && !HTTP_RETRY_AFTER.test(name))
          .map(({ name, line }) => `${file.path}:${line}: ${name}`),
      );
  }

  it('refuses a re-check delay or a retry backoff declared in a processor', () => {
    const processor = parseSource(
      'apps/worker/src/example.processor.ts',
      [
        'const AT_CAPACITY_RECHECK_MS = 1_000;',
        'export const infraRetryDelayMs = (retry: number) => 2_000 * 2 ** retry;',
        'const RETRY_AFTER_SECONDS = 10;',
        'function run() { const retryDelayMs = decide(); return retryDelayMs; }',
      ].join('\n'),
    );
    expect(policyConstantsOutsideTheEngine([processor])).toEqual([
      'apps/worker/src/example.processor.ts:1: AT_CAPACITY_RECHECK_MS',
      'apps/worker/src/example.processor.ts:2: infraRetryDelayMs',
    ]);
  });

  it('has no retry or re-check constant outside packages/engine', () => {
    expect(policyConstantsOutsideTheEngine(PRODUCTION)).toEqual([]);
  });
});

describe('artifact content is deleted by one function', () => {
  /** The one function that deletes stored artifact content (@botfleet/artifacts). */
  const DELETION_FUNCTION = 'packages/artifacts/src/delete-artifact-content.ts';
  /** The S3 store's own implementation of `remove`, which only that function calls. */
  const S3_STORE = 'packages/artifacts/src/s3-artifact-store.ts';
  const S3_DELETES = new Set(['DeleteObjectCommand', 'DeleteObjectsCommand']);

  function artifactDeletionsElsewhere(files: readonly SourceFile[]): Offence[] {
    return files.flatMap((file) => [
      ...(file.path === DELETION_FUNCTION
        ? []
        : methodCalls(file)
            .filter(({ method, receiver }) => method === 'remove' && /store/i.test(receiver))
            .map(({ receiver, line }) => `${file.path}:${line}: ${receiver}.remove()`)),
      ...(file.path === S3_STORE
        ? []
        : identifiers(file)
            .filter(({ name }) => S3_DELETES.has(name))
            .map(({ name, line }) => `${file.path}:${line}: ${name}`)),
    ]);
  }

  it('refuses a role that removes stored objects itself', () => {
    const role = parseSource(
      'apps/scheduler/src/example.ts',
      [
        'await deps.artifactStore',
        '  .remove(keys);',
        "import { DeleteObjectsCommand } from '@aws-sdk/client-s3';",
        'link.remove();',
      ].join('\n'),
    );
    expect(artifactDeletionsElsewhere([role])).toEqual([
      'apps/scheduler/src/example.ts:1: deps.artifactStore.remove()',
      'apps/scheduler/src/example.ts:3: DeleteObjectsCommand',
    ]);
  });

  it(`deletes stored artifacts only through ${DELETION_FUNCTION}`, () => {
    expect(readFileSync(join(REPO_ROOT, DELETION_FUNCTION), 'utf8')).toContain(
      'export async function deleteArtifactContent(',
    );
    expect(artifactDeletionsElsewhere(PRODUCTION)).toEqual([]);
  });
});

describe('no import circle', () => {
  it('finds a circle of three files and a file that imports itself', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts', 'd.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', []],
      ['e.ts', ['e.ts']],
    ]);
    expect(findImportCycles(graph)).toEqual([
      ['a.ts', 'b.ts', 'c.ts', 'a.ts'],
      ['e.ts', 'e.ts'],
    ]);
  });

  it('resolves relative imports, workspace packages and their testing entries', () => {
    const resolveImport = createImportResolver(SOURCES.map((file) => file.path));
    expect(resolveImport('packages/db/src/repositories/steps.ts', './bot-definition')).toBe(
      'packages/db/src/repositories/bot-definition.ts',
    );
    expect(resolveImport('apps/worker/src/start-worker.ts', '@botfleet/db')).toBe('packages/db/src/index.ts');
    expect(resolveImport('apps/worker/src/start-worker.ts', '@botfleet/db/testing')).toBe('packages/db/testing.ts');
    expect(resolveImport('packages/engine/src/attempts.ts', '@botfleet/db/state')).toBe('packages/db/src/state.ts');
    expect(resolveImport('apps/worker/src/start-worker.ts', 'bullmq')).toBeUndefined();
  });

  it('has no circle among the files of any workspace, `import type` included', () => {
    const resolveImport = createImportResolver(SOURCES.map((file) => file.path));
    const graph = new Map(
      SOURCES.map((file) => [
        file.path,
        importedSpecifiers(file).flatMap((specifier) => resolveImport(file.path, specifier) ?? []),
      ]),
    );
    expect(findImportCycles(graph).map((circle) => circle.join(' -> '))).toEqual([]);
  });
});

describe("the API's arrows run one way", () => {
  const API = 'apps/api/src';
  /** Below the routers: what a route uses to answer. None of it may reach back up into routes/. */
  const BELOW_ROUTES = ['contracts', 'views', 'services', 'live', 'openapi', 'http'].map((dir) => `${API}/${dir}`);

  function upwardImports(files: readonly SourceFile[]): Offence[] {
    const resolveImport = createImportResolver(files.map((file) => file.path));
    return files.flatMap((file) => {
      const above = under(file, `${API}/contracts`)
        ? [`${API}/routes`, `${API}/views`, `${API}/services`]
        : under(file, ...BELOW_ROUTES)
          ? [`${API}/routes`]
          : [];
      return importedSpecifiers(file)
        .map((specifier) => resolveImport(file.path, specifier))
        .filter((target): target is string => target !== undefined)
        .filter((target) => above.some((dir) => target.startsWith(`${dir}/`)))
        .map((target) => `${file.path} -> ${target}`);
    });
  }

  it('refuses a view typed from a router’s folder and a contract that imports a service', () => {
    const files = [
      parseSource(`${API}/routes/bots.router.ts`, ''),
      parseSource(`${API}/services/export-records.ts`, ''),
      parseSource(`${API}/views/bot.view.ts`, "import type { BotDetail } from '../routes/bots.router';"),
      parseSource(`${API}/contracts/results-export.contract.ts`, "import { X } from '../services/export-records';"),
    ];
    expect(upwardImports(files)).toEqual([
      `${API}/views/bot.view.ts -> ${API}/routes/bots.router.ts`,
      `${API}/contracts/results-export.contract.ts -> ${API}/services/export-records.ts`,
    ]);
  });

  it('has contracts, views, services, live streams, the OpenAPI builder and http/ import nothing from routes/', () => {
    expect(upwardImports(SOURCES.filter((file) => under(file, API) && !file.testOnly))).toEqual([]);
  });
});

describe('packages depend one way', () => {
  interface Manifest {
    name: string;
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  }
  const manifests = new Map(
    workspaceDirs().map((dir) => [
      dir,
      JSON.parse(readFileSync(join(REPO_ROOT, dir, 'package.json'), 'utf8')) as Manifest,
    ]),
  );
  const dirOf = new Map([...manifests].map(([dir, manifest]) => [manifest.name, dir]));
  /** The workspaces a workspace lists, for production (`dependencies`) or for its tests too. */
  const workspaceDeps = (manifest: Manifest, withDev: boolean) =>
    Object.keys({ ...manifest.dependencies, ...(withDev ? manifest.devDependencies : {}) }).filter((name) =>
      dirOf.has(name),
    );

  /** Modules that reach outside the process: core names what they do, other packages do it. */
  const IO_MODULES =
    /^(node:(dns|net|http|https|http2|tls|dgram|child_process)|pino|ioredis|bullmq|pg|@prisma\/.*|playwright.*)$/;

  function ioImportsOfCore(files: readonly SourceFile[]): Offence[] {
    return files
      .filter((file) => under(file, 'packages/core') && !file.testOnly)
      .flatMap((file) =>
        importedSpecifiers(file)
          .filter((specifier) => IO_MODULES.test(specifier))
          .map((specifier) => `${file.path}: ${specifier}`),
      );
  }

  it('refuses a logger or a DNS lookup in core', () => {
    const files = [
      parseSource('packages/core/src/logger.ts', "import pino from 'pino';"),
      parseSource('packages/core/src/guarded-lookup.ts', "import dns from 'node:dns';\nimport { z } from 'zod';"),
    ];
    expect(ioImportsOfCore(files)).toEqual([
      'packages/core/src/logger.ts: pino',
      'packages/core/src/guarded-lookup.ts: node:dns',
    ]);
  });

  it('keeps core free of I/O: no network, logging, queue, database or browser module, no workspace', () => {
    expect(ioImportsOfCore(SOURCES)).toEqual([]);
    expect(workspaceDeps(manifests.get('packages/core')!, true)).toEqual([]);
  });

  it('has packages depend on no app, nothing but apps depend on the engine, and no circle between workspaces', () => {
    const isApp = (dir: string) => dir.startsWith('apps/');
    const offences = [...manifests].flatMap(([dir, manifest]) =>
      workspaceDeps(manifest, true)
        .filter((dep) => !isApp(dir) && (isApp(dirOf.get(dep)!) || dep === '@botfleet/engine'))
        .map((dep) => `${dir} -> ${dep}`),
    );
    expect(offences).toEqual([]);
    // What a workspace ships goes one way; an app's tests may drive another app (the console's drive
    // the API, which serves the console), but a package's tests stay below it too.
    const graph = new Map(
      [...manifests].map(([dir, manifest]) => [
        dir,
        workspaceDeps(manifest, !isApp(dir)).map((dep) => dirOf.get(dep)!),
      ]),
    );
    expect(findImportCycles(graph)).toEqual([]);
  });

  it('declares every workspace a file imports: production code in `dependencies`, tests in either', () => {
    const offences = SOURCES.flatMap((file) => {
      const dir = [...manifests.keys()].find((workspace) => file.path.startsWith(`${workspace}/`))!;
      const manifest = manifests.get(dir)!;
      const declared = new Set(workspaceDeps(manifest, file.testOnly));
      return importedSpecifiers(file)
        .map((specifier) => specifier.split('/').slice(0, 2).join('/'))
        .filter((name) => dirOf.has(name) && name !== manifest.name && !declared.has(name))
        .map((name) => `${file.path}: ${name}`);
    });
    expect([...new Set(offences)]).toEqual([]);
  });
});

describe('roles take every default from CONFIG_DEFAULTS', () => {
  /** A role's declaration: `apps/<app>/src/start-<role>.ts`. */
  const ROLE_FILE = /^apps\/[^/]+\/src\/start-[^/]+\.ts$/;
  /** Milliseconds per second: a literal that only converts a setting's unit. */
  const UNIT_CONVERSION = 1000;
  /** Counting, not configuring: a first attempt (0), one above a limit (+ 1). */
  const COUNTING = new Set([0, 1]);

  /**
   * Every numeric literal of a role's declaration that is not a unit conversion (`* 1000`,
   * `/ 1000`) or a count: a default, a bound or a timeout of its own, which belongs in
   * CONFIG_DEFAULTS (packages/core/src/config.ts; CONTRIBUTING.md, "House rules").
   */
  function numericDefaultsInRoles(files: readonly SourceFile[]): Offence[] {
    return files
      .filter((file) => ROLE_FILE.test(file.path))
      .flatMap((file) => {
        const found: Offence[] = [];
        const visit = (node: ts.Node): void => {
          if (ts.isNumericLiteral(node)) {
            const value = Number(node.text);
            const parent = node.parent;
            const converts =
              value === UNIT_CONVERSION &&
              ts.isBinaryExpression(parent) &&
              parent.right === node &&
              (parent.operatorToken.kind === ts.SyntaxKind.AsteriskToken ||
                parent.operatorToken.kind === ts.SyntaxKind.SlashToken);
            if (!converts && !COUNTING.has(value)) {
              const { line } = file.ast.getLineAndCharacterOfPosition(node.getStart(file.ast));
              found.push(`${file.path}:${line + 1}: ${node.getText(file.ast)}`);
            }
          }
          ts.forEachChild(node, visit);
        };
        visit(file.ast);
        return found;
      });
  }

  it('refuses a drain default, a named timeout and a batch size written in a role', () => {
    const role = parseSource(
      'apps/exporter/src/start-exporter.ts',
      [
        'const HAND_BACK_TIMEOUT_MS = 5_000;',
        'const drainTimeoutMs = options.drainTimeoutMs ?? 30_000;',
        'const intervalMs = CONFIG_DEFAULTS.SWEEP_INTERVAL_SECONDS * 1000;',
        'const lagSeconds = Math.max(0, Date.now() - slot) / 1000;',
        'const maxStalledCount = maxInfraRetries + 1;',
        'sweep({ batchSize: 500, everyMs: 1000 + intervalMs });',
      ].join('\n'),
    );
    const elsewhere = parseSource('apps/exporter/src/exporter.ts', 'const BATCH = 500;');
    expect(numericDefaultsInRoles([role, elsewhere])).toEqual([
      'apps/exporter/src/start-exporter.ts:1: 5_000',
      'apps/exporter/src/start-exporter.ts:2: 30_000',
      'apps/exporter/src/start-exporter.ts:6: 500',
      'apps/exporter/src/start-exporter.ts:6: 1000',
    ]);
  });

  it('has no numeric default literal in any start-*.ts', () => {
    const roles = PRODUCTION.filter((file) => ROLE_FILE.test(file.path)).map((file) => file.path);
    expect(roles).toEqual(
      expect.arrayContaining([
        'apps/api/src/start-api.ts',
        'apps/worker/src/start-worker.ts',
        'apps/delivery/src/start-delivery.ts',
        'apps/scheduler/src/start-scheduler.ts',
      ]),
    );
    expect(numericDefaultsInRoles(PRODUCTION)).toEqual([]);
  });
});
