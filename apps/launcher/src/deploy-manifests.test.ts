import { parseEnv, ROLE_NAMES } from '@botfleet/core';
import { executionRun } from '@botfleet/queue';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './repo-paths';
import { parseYamlDocuments } from './testing/parse-yaml';

/*
 * What `kubectl kustomize deploy/kubernetes/base` renders, checked without a cluster: every
 * resource the kustomization lists parses, each role has a Deployment with probes on the ops
 * port, resources and a grace period that covers the drain; KEDA scales workers on the executions
 * backlog gauge; a Job runs the migrations the roles no longer run themselves, with a command the
 * image holds; the fleet's connection pools fit PostgreSQL's default max_connections; the Redis
 * overlays are valid configuration; and the compose files agree with each other.
 */
const BASE = join(REPO_ROOT, 'deploy/kubernetes/base');

interface Probe {
  httpGet?: { path: string; port: string | number };
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: { name: string; value?: string }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  ports?: { name: string; containerPort: number }[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
}
interface Resource {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  spec?: {
    selector?: Record<string, string> & { matchLabels?: Record<string, string> };
    replicas?: number;
    template?: {
      metadata: { labels: Record<string, string> };
      spec: { terminationGracePeriodSeconds?: number; restartPolicy?: string; containers: Container[] };
    };
    ports?: { port: number; targetPort: string | number }[];
    scaleTargetRef?: { name: string };
    minReplicaCount?: number;
    maxReplicaCount?: number;
    triggers?: { type: string; metadata: Record<string, string> }[];
  };
}

const readYaml = (path: string) => parseYamlDocuments(readFileSync(path, 'utf8'));
const kustomization = readYaml(join(BASE, 'kustomization.yaml'))[0] as { resources: string[] };
const resources = kustomization.resources.flatMap((file) => readYaml(join(BASE, file)) as Resource[]);
const ofKind = (kind: string) => resources.filter((r) => r.kind === kind);
const config = ofKind('ConfigMap')[0]!;
const secret = ofKind('Secret')[0]!;
const deployments = ofKind('Deployment');
const roleOf = (d: Resource) => d.spec!.template!.spec.containers[0]!.env?.find((e) => e.name === 'ROLES')?.value;
const deploymentOf = (role: string) => deployments.find((d) => roleOf(d) === role)!;

/** The Secret's SECRETS_KEY is a placeholder to replace; a valid stand-in lets the rest parse. */
const STAND_IN_SECRETS_KEY = 'a'.repeat(64);

/** What a container's process sees: the ConfigMap, then the Secret, then its own `env` (Kubernetes' order). */
function containerEnv(container: Container, configMap = config, secretData = secret): Record<string, string> {
  const own = Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value ?? '']));
  return { ...configMap.data, ...secretData.stringData, SECRETS_KEY: STAND_IN_SECRETS_KEY, ...own };
}

describe('Kubernetes base', () => {
  it('splits settings from secrets, and the settings are valid configuration', () => {
    expect(Object.keys(secret.stringData ?? {}).sort()).toEqual(['DATABASE_URL', 'REDIS_URL', 'SECRETS_KEY']);
    for (const key of Object.keys(config.data!))
      expect(key).not.toMatch(/SECRET|PASSWORD|TOKEN|DATABASE_URL|REDIS_URL/);
    // Everything in the ConfigMap parses as botfleet configuration (a typo would stop every pod).
    expect(() => parseEnv(config.data!)).not.toThrow();
  });

  it('runs one Deployment per role, probed on the ops port, with resources and a grace period covering the drain', () => {
    expect(deployments.map(roleOf).sort()).toEqual([...ROLE_NAMES].sort());
    const env = parseEnv(config.data!);
    for (const deployment of deployments) {
      const role = roleOf(deployment)!;
      const pod = deployment.spec!.template!.spec;
      const container = pod.containers[0]!;
      expect(deployment.spec!.selector!.matchLabels).toEqual(
        expect.objectContaining({ 'app.kubernetes.io/component': role }),
      );
      expect(container.envFrom).toEqual([
        { configMapRef: { name: config.metadata.name } },
        { secretRef: { name: secret.metadata.name } },
      ]);
      const ops = container.ports!.find((p) => p.name === 'ops');
      expect(ops?.containerPort).toBe(env.OPS_PORT);
      expect(container.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'ops' });
      expect(container.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'ops' });
      expect(container.startupProbe?.httpGet).toEqual({ path: '/healthz', port: 'ops' });
      for (const kind of ['requests', 'limits'] as const) {
        expect(container.resources?.[kind]).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
      }
      // The process drains within SHUTDOWN_GRACE_SECONDS; Kubernetes waits 10 s more, of which a
      // preStop pause may use at most 5.
      expect(pod.terminationGracePeriodSeconds).toBe(env.SHUTDOWN_GRACE_SECONDS + 10);
      const preStop = container.lifecycle?.preStop?.exec?.command;
      if (preStop) expect(Number(preStop[1])).toBeLessThanOrEqual(5);
    }
  });

  it('exposes the API through a Service on its HTTP port', () => {
    const [service] = ofKind('Service');
    const api = deploymentOf('api');
    expect(service?.spec!.selector).toEqual(api.spec!.selector!.matchLabels);
    const http = api.spec!.template!.spec.containers[0]!.ports!.find((p) => p.name === 'http');
    expect(http?.containerPort).toBe(parseEnv(config.data!).PORT);
    expect(service?.spec!.ports).toEqual([expect.objectContaining({ targetPort: 'http' })]);
  });

  it('scales workers with KEDA on the executions backlog the roles export', () => {
    const [scaled] = ofKind('ScaledObject');
    expect(scaled?.apiVersion).toBe('keda.sh/v1alpha1');
    expect(scaled?.spec!.scaleTargetRef!.name).toBe(deploymentOf('worker').metadata.name);
    expect(scaled?.spec!.minReplicaCount).toBeGreaterThanOrEqual(0);
    expect(scaled?.spec!.maxReplicaCount).toBeGreaterThan(scaled!.spec!.minReplicaCount!);
    const [trigger] = scaled!.spec!.triggers!;
    expect(trigger?.type).toBe('prometheus');
    // The gauge the ops server exports, for the queue runs go to, waiting in either BullMQ
    // structure (fairness priorities put runs in the prioritized set, not the wait list).
    const query = trigger!.metadata.query!;
    expect(query).toContain('botfleet_queue_jobs{');
    expect(query).toContain(`queue="${executionRun.queue}"`);
    expect(query).toMatch(/state=~"[^"]*waiting[^"]*"/);
    expect(query).toMatch(/state=~"[^"]*prioritized[^"]*"/);
    expect(Number(trigger?.metadata.threshold)).toBeGreaterThan(0);
  });
});

describe('migrations as a job', () => {
  const jobs = ofKind('Job');
  const job = jobs[0]!;
  const container = job.spec!.template!.spec.containers[0]!;
  const rootManifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');

  it('leaves migrations to the Job: every role starts with MIGRATE_ON_START=false', () => {
    expect(jobs).toHaveLength(1);
    expect(job.apiVersion).toBe('batch/v1');
    for (const deployment of deployments) {
      const env = parseEnv(containerEnv(deployment.spec!.template!.spec.containers[0]!));
      expect({ role: roleOf(deployment), migrateOnStart: env.MIGRATE_ON_START }).toEqual({
        role: roleOf(deployment),
        migrateOnStart: false,
      });
    }
    // The Job reads the roles' settings (the same database, DIRECT_DATABASE_URL when the Secret has one).
    expect(container.envFrom).toEqual([
      { configMapRef: { name: config.metadata.name } },
      { secretRef: { name: secret.metadata.name } },
    ]);
    expect(() => parseEnv(containerEnv(container))).not.toThrow();
    expect(['Never', 'OnFailure']).toContain(job.spec!.template!.spec.restartPolicy);
  });

  it('runs `npm run db:migrate` as the image holds it: the compiled entry point of the same source', () => {
    // `args`, not `command`: the image's entrypoint (tini) stays PID 1 and forwards signals.
    expect(container.command).toBeUndefined();
    expect(dockerfile).toMatch(/^ENTRYPOINT \["\/usr\/bin\/tini", "--"\]$/m);
    const [program, script, ...rest] = container.args!;
    expect(program).toBe('node');
    expect(rest).toEqual([]);
    // The image runs compiled JavaScript only (the sources are deleted): `<workspace>/dist/<file>.js`
    // is built from `<workspace>/src/<file>.ts`, the file `npm run db:migrate` runs with tsx.
    const compiled = /^((?:apps|packages)\/[^/]+)\/dist\/(.+)\.js$/.exec(script!);
    expect(compiled).not.toBeNull();
    const [, workspace, file] = compiled!;
    const source = `${workspace}/src/${file}.ts`;
    expect(existsSync(join(REPO_ROOT, source))).toBe(true);
    expect(rootManifest.scripts['db:migrate']).toBe(`tsx ${source}`);
    // ... and the build compiles it there: the workspace is part of `tsc -b tsconfig.build.json`,
    // its src/ goes to dist/, and the file is neither left out nor excluded.
    const rootBuild = JSON.parse(readFileSync(join(REPO_ROOT, 'tsconfig.build.json'), 'utf8')) as {
      references: { path: string }[];
    };
    expect(rootBuild.references.map((r) => r.path)).toContain(`./${workspace}/tsconfig.build.json`);
    const build = JSON.parse(readFileSync(join(REPO_ROOT, workspace!, 'tsconfig.build.json'), 'utf8')) as {
      compilerOptions: { rootDir: string; outDir: string };
      include: string[];
      exclude?: string[];
    };
    expect(build.compilerOptions).toEqual(expect.objectContaining({ rootDir: 'src', outDir: 'dist' }));
    const inSources = `src/${file}.ts`;
    expect(build.include.some((glob) => globToRegExp(glob).test(inSources))).toBe(true);
    expect((build.exclude ?? []).some((glob) => globToRegExp(glob).test(inSources))).toBe(false);
    // The image keeps dist/ (only sources are removed), the migrations beside it, and resolves
    // @botfleet/* imports to their dist/ entries.
    const removed = /rm -rf ([^\n\\]+)/.exec(dockerfile)![1]!.split(/\s+/);
    expect(removed.filter((path) => path.includes('dist'))).toEqual([]);
    expect(dockerfile).toContain('NODE_OPTIONS=--conditions=botfleet-dist');
    const dockerignore = readFileSync(join(REPO_ROOT, '.dockerignore'), 'utf8').split('\n');
    expect(dockerignore.filter((line) => /^!?\/?prisma/.test(line.trim()))).toEqual([]);
  });
});

/**
 * PostgreSQL's defaults: max_connections = 100, of which superuser_reserved_connections = 3 are
 * kept for superusers (botfleet's roles are not). docs/operations.md ("Connections") shows the sum.
 */
const MAX_CONNECTIONS = 100;
const SUPERUSER_RESERVED_CONNECTIONS = 3;
/** The migration Job holds one connection at a time (migrator.ts, create-database.ts). */
const MIGRATION_JOB_CONNECTIONS = 1;

describe('connections', () => {
  const [scaled] = ofKind('ScaledObject');
  /** Pods of a Deployment at most: KEDA's maxReplicaCount where KEDA scales it, else its replicas. */
  const mostPods = (deployment: Resource) =>
    scaled?.spec!.scaleTargetRef!.name === deployment.metadata.name
      ? scaled.spec!.maxReplicaCount!
      : (deployment.spec!.replicas ?? 1);
  const fleet = deployments.map((deployment) => {
    const env = parseEnv(containerEnv(deployment.spec!.template!.spec.containers[0]!));
    const role = roleOf(deployment)!;
    // API_PROCESSES > 1 forks that many API processes, each with its own pool.
    const processes = role === 'api' ? env.API_PROCESSES : 1;
    const pods = mostPods(deployment);
    return {
      role,
      pods,
      processes,
      poolSize: env.DATABASE_POOL_SIZE,
      connections: pods * processes * env.DATABASE_POOL_SIZE,
    };
  });
  const rolesTotal = fleet.reduce((sum, row) => sum + row.connections, 0);

  it("keeps the largest fleet's pools, the migration Job and the reserved connections within max_connections", () => {
    expect(fleet.map((row) => row.role).sort()).toEqual([...ROLE_NAMES].sort());
    // Every role sets its pool: pg's default of 10 per process is what overran the database.
    for (const deployment of deployments)
      expect(deployment.spec!.template!.spec.containers[0]!.env?.map((e) => e.name)).toContain('DATABASE_POOL_SIZE');
    expect(rolesTotal + MIGRATION_JOB_CONNECTIONS + SUPERUSER_RESERVED_CONNECTIONS).toBeLessThanOrEqual(
      MAX_CONNECTIONS,
    );
  });

  it('matches the worked example in docs/operations.md', () => {
    const docs = readFileSync(join(REPO_ROOT, 'docs/operations.md'), 'utf8');
    for (const row of fleet)
      expect(docs).toContain(
        `| \`${row.role}\` | ${row.pods} | ${row.processes} | ${row.poolSize} | ${row.connections} |`,
      );
    const total = rolesTotal + MIGRATION_JOB_CONNECTIONS + SUPERUSER_RESERVED_CONNECTIONS;
    expect(docs).toContain(`**${total} of ${MAX_CONNECTIONS}**`);
  });
});

describe('Redis overlays', () => {
  const OVERLAYS = join(REPO_ROOT, 'deploy/kubernetes/overlays');

  /**
   * The ConfigMap and Secret an overlay renders: the base's, with each patch's data merged over
   * them by kind and name, as a strategic-merge patch of a map does. Any other kind of patch fails
   * the test, rather than being ignored.
   */
  function renderSettings(overlay: string) {
    const dir = join(OVERLAYS, overlay);
    const kustomization = readYaml(join(dir, 'kustomization.yaml'))[0] as {
      resources: string[];
      patches: { path: string }[];
    };
    expect(kustomization.resources).toEqual(['../../base']);
    const merged = { configMap: structuredClone(config), secret: structuredClone(secret) };
    for (const { path } of kustomization.patches) {
      for (const patch of readYaml(join(dir, path)) as Resource[]) {
        const target = patch.kind === 'ConfigMap' ? merged.configMap : patch.kind === 'Secret' ? merged.secret : null;
        expect(target?.metadata.name).toBe(patch.metadata.name);
        Object.assign(target!.data ?? (target!.stringData ??= {}), patch.data ?? patch.stringData);
      }
    }
    return merged;
  }

  const overlayEnv = (overlay: string, role: string) => {
    const { configMap, secret: secretData } = renderSettings(overlay);
    return parseEnv(containerEnv(deploymentOf(role).spec!.template!.spec.containers[0]!, configMap, secretData));
  };

  it('has one overlay per Redis mode beyond standalone', () => {
    expect(readdirSync(OVERLAYS).sort()).toEqual(['redis-cluster', 'redis-sentinel']);
  });

  it('Sentinel: every role reaches the master through the sentinels, with the credentials from the Secret', () => {
    for (const role of ROLE_NAMES) {
      const { redis, QUEUE_PREFIX } = overlayEnv('redis-sentinel', role);
      expect(redis.mode).toBe('sentinel');
      if (redis.mode !== 'sentinel') continue;
      expect(redis.sentinels.length).toBeGreaterThanOrEqual(3);
      expect(redis.masterName).toEqual(expect.any(String));
      expect(redis.password).toEqual(expect.any(String));
      expect(redis.sentinelPassword).toEqual(expect.any(String));
      expect(QUEUE_PREFIX).toBe('botfleet');
    }
    // Passwords stay out of the ConfigMap.
    for (const key of Object.keys(renderSettings('redis-sentinel').configMap.data!))
      expect(key).not.toMatch(/PASSWORD|REDIS_URL/);
  });

  it('Cluster: every role uses the cluster with a hash-tagged prefix, over TLS', () => {
    for (const role of ROLE_NAMES) {
      const { redis, QUEUE_PREFIX } = overlayEnv('redis-cluster', role);
      expect(redis.mode).toBe('cluster');
      expect(QUEUE_PREFIX).toMatch(/^\{[A-Za-z0-9_-]+\}$/);
      expect(redis.tls).not.toBeNull();
      expect(redis.password).toEqual(expect.any(String));
    }
    // The base's plain prefix is refused in cluster mode: the overlay must (and does) replace it.
    const { configMap, secret: secretData } = renderSettings('redis-cluster');
    const withBasePrefix = {
      ...containerEnv(deploymentOf('api').spec!.template!.spec.containers[0]!, configMap, secretData),
    };
    withBasePrefix.QUEUE_PREFIX = config.data!.QUEUE_PREFIX!;
    expect(() => parseEnv(withBasePrefix)).toThrow(/QUEUE_PREFIX/);
  });
});

/** Whether an `engines` range of `^x.y.z` and `>=x.y.z` alternatives admits some release of `major`. */
function allowsMajor(range: string, major: number): boolean {
  return range.split('||').some((alternative) => {
    const match = /^\s*(\^|>=)(\d+)\.\d+\.\d+\s*$/.exec(alternative);
    if (!match) throw new Error(`unexpected engines alternative ${JSON.stringify(alternative)}`);
    return match[1] === '^' ? Number(match[2]) === major : Number(match[2]) <= major;
  });
}

/** A tsconfig `include`/`exclude` glob as a RegExp over paths relative to the tsconfig. */
function globToRegExp(glob: string): RegExp {
  const pattern = glob
    .split('/')
    .map((part) =>
      part === '**' ? '(?:.*/)?' : `${part.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}/`,
    )
    .join('');
  return new RegExp(`^${pattern.replace(/\/$/, '').replace(/\(\?:\.\*\/\)\?$/, '.*')}$`);
}

describe('Docker Compose', () => {
  interface Service {
    build?: string | { context: string };
    container_name?: string;
    ports?: string[];
    environment?: Record<string, string>;
    healthcheck?: { test: string[] };
    stop_grace_period?: string;
  }
  // Compose's interpolation as `docker compose config` does it with nothing set: `${X:-default}`
  // gives the default; a required `${X:?message}` gets a valid stand-in.
  const withDefaults = (value: string) =>
    value.replace(/\$\{(\w+)(?::-([^}]*)|:\?[^}]*)?\}/g, (_all, name: string, fallback?: string) =>
      name === 'SECRETS_KEY' ? 'a'.repeat(64) : (fallback ?? ''),
    );
  const load = (path: string) => readYaml(join(REPO_ROOT, path))[0] as { services: Record<string, Service> };
  const root = load('docker-compose.yml');
  const deploy = load('deploy/docker-compose.yml');

  it('keeps deploy/docker-compose.yml equal to the root one but for the build context', () => {
    const withoutBuild = (services: Record<string, Service>) =>
      Object.fromEntries(Object.entries(services).map(([name, { build: _build, ...rest }]) => [name, rest]));
    expect(withoutBuild(deploy.services)).toEqual(withoutBuild(root.services));
    expect(deploy.services.worker?.build).toEqual({ context: '..' });
  });

  it('lets workers scale, checks readiness on the ops port and waits out the drain', () => {
    const worker = root.services.worker!;
    expect(worker.container_name).toBeUndefined();
    expect(worker.ports).toBeUndefined();
    for (const role of ROLE_NAMES) {
      const service = root.services[role]!;
      expect(service.environment?.ROLES).toBe(role);
      const env = parseEnv(
        Object.fromEntries(Object.entries(service.environment ?? {}).map(([k, v]) => [k, withDefaults(v)])),
      );
      expect(service.healthcheck?.test.join(' ')).toContain(`127.0.0.1:${env.OPS_PORT}/readyz`);
      expect(service.stop_grace_period).toBe(`${env.SHUTDOWN_GRACE_SECONDS + 10}s`);
    }
  });
});

describe('the Dockerfile', () => {
  const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
  const rootManifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    workspaces: string[];
    engines: { node: string };
  };

  it('runs a Node release `engines` allows: the major `npm test` runs a part of the suite on', () => {
    const images = [...dockerfile.matchAll(/^FROM node:(\d+)-/gm)].map((m) => Number(m[1]));
    expect(images.length).toBeGreaterThan(0);
    // scripts/node-version.mjs pins the release of the second test phase (scripts/test.mjs).
    const pinned = /export const NODE_24 = '(\d+)\.\d+\.\d+'/.exec(
      readFileSync(join(REPO_ROOT, 'scripts/node-version.mjs'), 'utf8'),
    );
    for (const major of images) {
      expect(major).toBe(Number(pinned![1]));
      expect(allowsMajor(rootManifest.engines.node, major)).toBe(true);
    }
    // One range for the whole repository: no workspace claims another.
    for (const pattern of rootManifest.workspaces) {
      const parent = pattern.replace(/\/\*$/, '');
      for (const name of readdirSync(join(REPO_ROOT, parent))) {
        const file = join(REPO_ROOT, parent, name, 'package.json');
        if (!existsSync(file)) continue;
        const manifest = JSON.parse(readFileSync(file, 'utf8')) as { engines?: { node?: string } };
        expect([undefined, rootManifest.engines.node]).toContain(manifest.engines?.node);
      }
    }
  });

  it("copies every workspace's package.json before `npm ci`, so the image installs each of them", () => {
    // The lockfile lists every workspace; one whose package.json is missing there breaks `npm ci`
    // in the image (and only there: no test here builds it without a Docker engine).
    const workspaces = rootManifest.workspaces.flatMap((pattern) => {
      const parent = pattern.replace(/\/\*$/, '');
      const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
        packages: Record<string, { link?: boolean }>;
      };
      return Object.keys(lock.packages).filter(
        (path) => path.startsWith(`${parent}/`) && !path.includes('node_modules'),
      );
    });
    expect(workspaces.length).toBeGreaterThan(0);
    const beforeInstall = dockerfile.slice(0, dockerfile.indexOf('RUN npm ci'));
    for (const workspace of workspaces) expect(beforeInstall).toContain(`COPY ${workspace}/package.json ${workspace}/`);
  });
});
