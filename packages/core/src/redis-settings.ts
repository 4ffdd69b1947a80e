import { accessSync, constants, statSync } from 'node:fs';

/*
 * How every role reaches Redis, parsed once from the environment (config.ts) into one value that
 * packages/queue's connection factory turns into ioredis clients. Contract part 3, section 4:
 * standalone (REDIS_URL), Sentinel (REDIS_SENTINELS + REDIS_SENTINEL_MASTER) or Cluster
 * (REDIS_CLUSTER_NODES), with TLS files in any mode. With sentinels or cluster nodes set,
 * REDIS_URL only lends credentials, the database and `rediss:`; its host is not used.
 */

export interface RedisEndpoint {
  readonly host: string;
  readonly port: number;
}

/** TLS towards Redis: on when REDIS_URL is `rediss:` or any file is set; the files as paths. */
export interface RedisTlsSettings {
  readonly caFile?: string;
  readonly certFile?: string;
  readonly keyFile?: string;
}

interface RedisSettingsBase {
  /** ACL user of the data nodes (not of the sentinels). */
  readonly username?: string;
  readonly password?: string;
  /** null: plain TCP. */
  readonly tls: RedisTlsSettings | null;
}

export type RedisSettings =
  | (RedisSettingsBase & {
      readonly mode: 'standalone';
      readonly host: string;
      readonly port: number;
      readonly db: number;
    })
  | (RedisSettingsBase & {
      readonly mode: 'sentinel';
      readonly sentinels: readonly RedisEndpoint[];
      readonly masterName: string;
      readonly sentinelPassword?: string;
      readonly db: number;
    })
  | (RedisSettingsBase & { readonly mode: 'cluster'; readonly nodes: readonly RedisEndpoint[] });

export type RedisMode = RedisSettings['mode'];

/** The variables this module reads, as the environment gives them (empty already means unset). */
export interface RedisEnv {
  REDIS_URL: string;
  REDIS_USERNAME?: string;
  REDIS_PASSWORD?: string;
  REDIS_SENTINELS?: string;
  REDIS_SENTINEL_MASTER?: string;
  REDIS_SENTINEL_PASSWORD?: string;
  REDIS_CLUSTER_NODES?: string;
  REDIS_TLS_CA_FILE?: string;
  REDIS_TLS_CERT_FILE?: string;
  REDIS_TLS_KEY_FILE?: string;
}

/** One thing wrong, named by the variable to change. */
export interface RedisSettingsProblem {
  variable: keyof RedisEnv | 'QUEUE_PREFIX';
  message: string;
}

/** The prefix when QUEUE_PREFIX is unset: a hash tag in cluster mode, so each queue's keys share a slot. */
export const DEFAULT_QUEUE_PREFIX = 'botfleet';
export const DEFAULT_CLUSTER_QUEUE_PREFIX = `{${DEFAULT_QUEUE_PREFIX}}`;

/** A plain prefix (`botfleet`) or a Redis Cluster hash tag (`{botfleet}`); no `:` either way. */
export const QUEUE_PREFIX_PATTERN = /^(?:[A-Za-z0-9_-]+|\{[A-Za-z0-9_-]+\})$/;

/** Whether every key built as `<prefix>:...` hashes to the prefix's one slot. */
export const isHashTaggedPrefix = (prefix: string): boolean => /^\{[A-Za-z0-9_-]+\}$/.test(prefix);

/**
 * The settings for one standalone Redis at `url` (`redis://` or `rediss://`, user and password
 * in it): what tests and tools pass where a role takes the parsed setting.
 */
export function redisSettingsFromUrl(url: string): RedisSettings {
  const parsed = parseRedisSettings({ REDIS_URL: url });
  if ('problems' in parsed) throw new Error(parsed.problems.map((p) => `${p.variable}: ${p.message}`).join('; '));
  return parsed.settings;
}

/** Parses the Redis variables into one RedisSettings, or says what is wrong with each. */
export function parseRedisSettings(env: RedisEnv): { settings: RedisSettings } | { problems: RedisSettingsProblem[] } {
  const problems: RedisSettingsProblem[] = [];
  const problem = (variable: RedisSettingsProblem['variable'], message: string) => problems.push({ variable, message });

  const url = parseRedisUrl(env.REDIS_URL);
  if (typeof url === 'string') problem('REDIS_URL', url);
  const sentinels = env.REDIS_SENTINELS === undefined ? undefined : parseEndpoints(env.REDIS_SENTINELS);
  if (typeof sentinels === 'string') problem('REDIS_SENTINELS', sentinels);
  const nodes = env.REDIS_CLUSTER_NODES === undefined ? undefined : parseEndpoints(env.REDIS_CLUSTER_NODES);
  if (typeof nodes === 'string') problem('REDIS_CLUSTER_NODES', nodes);

  if (sentinels !== undefined && nodes !== undefined)
    problem('REDIS_CLUSTER_NODES', 'cannot be set together with REDIS_SENTINELS: pick Sentinel or Cluster');
  if (sentinels !== undefined && env.REDIS_SENTINEL_MASTER === undefined)
    problem(
      'REDIS_SENTINEL_MASTER',
      'is required with REDIS_SENTINELS: the name the sentinels monitor the master under',
    );
  if (sentinels === undefined) {
    if (env.REDIS_SENTINEL_MASTER !== undefined) problem('REDIS_SENTINEL_MASTER', 'is only used with REDIS_SENTINELS');
    if (env.REDIS_SENTINEL_PASSWORD !== undefined)
      problem('REDIS_SENTINEL_PASSWORD', 'is only used with REDIS_SENTINELS');
  }
  if (env.REDIS_SENTINEL_MASTER !== undefined && !/^[A-Za-z0-9._-]+$/.test(env.REDIS_SENTINEL_MASTER))
    problem('REDIS_SENTINEL_MASTER', 'must be a master name of letters, digits, ".", "_" or "-"');

  // Credentials in one place only: two passwords that disagree would fail at the first AUTH.
  if (typeof url !== 'string') {
    if (url.username !== undefined && env.REDIS_USERNAME !== undefined)
      problem('REDIS_USERNAME', 'is also given in REDIS_URL: set the user in one place');
    if (url.password !== undefined && env.REDIS_PASSWORD !== undefined)
      problem('REDIS_PASSWORD', 'is also given in REDIS_URL: set the password in one place');
  }
  const username = env.REDIS_USERNAME ?? (typeof url === 'string' ? undefined : url.username);
  const password = env.REDIS_PASSWORD ?? (typeof url === 'string' ? undefined : url.password);
  if (username !== undefined && password === undefined)
    problem(
      'REDIS_USERNAME',
      'needs a password too (REDIS_PASSWORD or in REDIS_URL): Redis ACL users log in with both',
    );

  const tlsFiles = {
    caFile: readableFile(env.REDIS_TLS_CA_FILE, 'REDIS_TLS_CA_FILE', problem),
    certFile: readableFile(env.REDIS_TLS_CERT_FILE, 'REDIS_TLS_CERT_FILE', problem),
    keyFile: readableFile(env.REDIS_TLS_KEY_FILE, 'REDIS_TLS_KEY_FILE', problem),
  };
  if ((env.REDIS_TLS_CERT_FILE === undefined) !== (env.REDIS_TLS_KEY_FILE === undefined))
    problem(
      env.REDIS_TLS_CERT_FILE === undefined ? 'REDIS_TLS_CERT_FILE' : 'REDIS_TLS_KEY_FILE',
      'a client certificate needs both REDIS_TLS_CERT_FILE and REDIS_TLS_KEY_FILE',
    );
  if (nodes !== undefined && typeof url !== 'string' && url.db !== 0)
    problem('REDIS_URL', `selects database ${url.db}, but a Redis Cluster only has database 0`);

  if (problems.length > 0 || typeof url === 'string' || typeof sentinels === 'string' || typeof nodes === 'string')
    return { problems };

  const anyFile = Object.values(tlsFiles).some((file) => file !== undefined);
  const tls: RedisTlsSettings | null =
    url.tls || anyFile ? Object.fromEntries(Object.entries(tlsFiles).filter(([, file]) => file !== undefined)) : null;
  const base = { username, password, tls };
  if (sentinels !== undefined)
    return {
      settings: {
        ...base,
        mode: 'sentinel',
        sentinels,
        masterName: env.REDIS_SENTINEL_MASTER!,
        sentinelPassword: env.REDIS_SENTINEL_PASSWORD,
        db: url.db,
      },
    };
  if (nodes !== undefined) return { settings: { ...base, mode: 'cluster', nodes } };
  return { settings: { ...base, mode: 'standalone', host: url.host, port: url.port, db: url.db } };
}

/**
 * QUEUE_PREFIX for the mode: unset takes the default (a hash tag in cluster mode); in cluster mode
 * a prefix that is not a hash tag is refused, since BullMQ's scripts touch several keys of a queue
 * at once and Redis Cluster refuses that unless they share a slot (CROSSSLOT).
 */
export function resolveQueuePrefix(given: string | undefined, mode: RedisMode): string | RedisSettingsProblem {
  if (given === undefined) return mode === 'cluster' ? DEFAULT_CLUSTER_QUEUE_PREFIX : DEFAULT_QUEUE_PREFIX;
  if (!QUEUE_PREFIX_PATTERN.test(given))
    return {
      variable: 'QUEUE_PREFIX',
      message: 'must be letters, digits, "_" or "-", optionally wrapped in braces as a hash tag ({botfleet})',
    };
  if (mode === 'cluster' && !isHashTaggedPrefix(given))
    return {
      variable: 'QUEUE_PREFIX',
      message: `must be a hash tag such as {${given}} with REDIS_CLUSTER_NODES: BullMQ's keys of one queue must share a cluster slot`,
    };
  return given;
}

interface ParsedRedisUrl {
  host: string;
  port: number;
  db: number;
  tls: boolean;
  username?: string;
  password?: string;
}

function parseRedisUrl(value: string): ParsedRedisUrl | string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be a URL such as redis://host:6379 or rediss://user:password@host:6380/0';
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
    return `must start with redis:// or rediss://, not ${url.protocol}//`;
  const port = url.port === '' ? 6379 : Number(url.port);
  const path = url.pathname.replace(/^\//, '');
  if (path !== '' && !/^\d{1,2}$/.test(path)) return 'must name the database as a number after the host (/0)';
  const decode = (part: string): string | undefined => (part === '' ? undefined : decodeURIComponent(part));
  return {
    // URL keeps IPv6 hosts in brackets; sockets want them bare.
    host: url.hostname.replace(/^\[(.*)\]$/, '$1') || '127.0.0.1',
    port,
    db: path === '' ? 0 : Number(path),
    tls: url.protocol === 'rediss:',
    username: decode(url.username),
    password: decode(url.password),
  };
}

/** `host:port,host:port`, IPv6 hosts in brackets (`[::1]:6379`). */
function parseEndpoints(value: string): RedisEndpoint[] | string {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) return 'must list at least one host:port';
  const endpoints: RedisEndpoint[] = [];
  for (const entry of entries) {
    const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(entry);
    const port = match ? Number(match[3]) : NaN;
    if (!match || port < 1 || port > 65535)
      return `${JSON.stringify(entry)} is not host:port (a comma-separated list such as redis-1:26379,redis-2:26379)`;
    endpoints.push({ host: match[1] ?? match[2]!, port });
  }
  return endpoints;
}

/** The path if it names a file this process can read now; otherwise a problem, and undefined. */
function readableFile(
  path: string | undefined,
  variable: keyof RedisEnv,
  problem: (variable: keyof RedisEnv, message: string) => void,
): string | undefined {
  if (path === undefined) return undefined;
  try {
    if (!statSync(path).isFile()) {
      problem(variable, `${path} is not a file`);
      return undefined;
    }
    accessSync(path, constants.R_OK);
    return path;
  } catch (err) {
    problem(variable, `${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    return undefined;
  }
}
