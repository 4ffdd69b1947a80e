import { parseEnv, ROLE_NAMES } from '@botfleet/core';
import { executionRun } from '@botfleet/queue';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './repo-paths';
import { parseYamlDocuments } from './testing/parse-yaml';

/*
 * What `kubectl kustomize deploy/kubernetes/base` renders, checked without a cluster: every
 * resource the kustomization lists parses, each role has a Deployment with probes on the ops
 * port, resources and a grace period that covers the drain; KEDA scales workers on the executions
 * backlog gauge; and the compose files agree with each other.
 */
const BASE = join(REPO_ROOT, 'deploy/kubernetes/base');

interface Probe {
  httpGet?: { path: string; port: string | number };
}
interface Container {
  name: string;
  image: string;
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
    template?: {
      metadata: { labels: Record<string, string> };
      spec: { terminationGracePeriodSeconds?: number; containers: Container[] };
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
  const rootManifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { workspaces: string[] };

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
