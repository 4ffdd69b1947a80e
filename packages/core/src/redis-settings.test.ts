import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, parseEnv } from './config';
import { isHashTaggedPrefix, redisSettingsFromUrl } from './redis-settings';

/** The problems parseEnv reports for `env`, each as `VARIABLE: message`. */
function problemsOf(env: Record<string, string>): string[] {
  try {
    parseEnv(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error(`expected ${JSON.stringify(env)} to be refused`);
}

describe('Redis settings (REDIS_*)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'botfleet-redis-settings-'));
  const file = (name: string) => {
    const path = join(dir, name);
    writeFileSync(path, `-----BEGIN ${name}-----\n`);
    return path;
  };
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('defaults to a standalone Redis on localhost with the plain prefix', () => {
    const env = parseEnv({});
    expect(env.redis).toEqual({
      mode: 'standalone',
      host: '127.0.0.1',
      port: 6379,
      db: 0,
      tls: null,
      username: undefined,
      password: undefined,
    });
    expect(env.QUEUE_PREFIX).toBe('botfleet');
  });

  it('reads user, password, database and TLS from REDIS_URL', () => {
    expect(parseEnv({ REDIS_URL: 'rediss://app:p%40ss@redis.internal:6380/3' }).redis).toEqual({
      mode: 'standalone',
      host: 'redis.internal',
      port: 6380,
      db: 3,
      tls: {},
      username: 'app',
      password: 'p@ss',
    });
    expect(parseEnv({ REDIS_URL: 'redis://[::1]:7000' }).redis).toMatchObject({ host: '::1', port: 7000 });
    expect(redisSettingsFromUrl('redis://127.0.0.1:6390')).toMatchObject({ mode: 'standalone', port: 6390 });
  });

  it('builds Sentinel settings, with data-node credentials from REDIS_URL or REDIS_USERNAME/REDIS_PASSWORD', () => {
    const fromUrl = parseEnv({
      REDIS_SENTINELS: 's1:26379, s2:26379,[fd00::3]:26380',
      REDIS_SENTINEL_MASTER: 'mymaster',
      REDIS_SENTINEL_PASSWORD: 'sentinel-secret',
      REDIS_URL: 'rediss://:data-secret@ignored-host:1/2',
    });
    expect(fromUrl.redis).toEqual({
      mode: 'sentinel',
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26379 },
        { host: 'fd00::3', port: 26380 },
      ],
      masterName: 'mymaster',
      sentinelPassword: 'sentinel-secret',
      db: 2,
      tls: {},
      username: undefined,
      password: 'data-secret',
    });
    expect(fromUrl.QUEUE_PREFIX).toBe('botfleet');
    const fromVariables = parseEnv({
      REDIS_SENTINELS: 's1:26379',
      REDIS_SENTINEL_MASTER: 'mymaster',
      REDIS_USERNAME: 'app',
      REDIS_PASSWORD: 'pw',
    });
    expect(fromVariables.redis).toMatchObject({ mode: 'sentinel', username: 'app', password: 'pw', tls: null });
  });

  it('builds Cluster settings with the hash-tagged prefix {botfleet} by default, and takes a hash tag of ours', () => {
    const env = parseEnv({ REDIS_CLUSTER_NODES: 'node-1:7000,node-2:7001' });
    expect(env.redis).toMatchObject({
      mode: 'cluster',
      nodes: [
        { host: 'node-1', port: 7000 },
        { host: 'node-2', port: 7001 },
      ],
    });
    expect(env.QUEUE_PREFIX).toBe('{botfleet}');
    expect(parseEnv({ REDIS_CLUSTER_NODES: 'n:7000', QUEUE_PREFIX: '{bf-h1}' }).QUEUE_PREFIX).toBe('{bf-h1}');
    // A hash tag is a valid prefix on one Redis too (a move to a cluster later keeps the keys' names).
    expect(parseEnv({ QUEUE_PREFIX: '{botfleet}' }).QUEUE_PREFIX).toBe('{botfleet}');
    expect(isHashTaggedPrefix('{botfleet}')).toBe(true);
    expect(isHashTaggedPrefix('botfleet')).toBe(false);
  });

  it('refuses a cluster prefix that is not a hash tag, saying why', () => {
    expect(problemsOf({ REDIS_CLUSTER_NODES: 'n:7000', QUEUE_PREFIX: 'botfleet' })).toEqual([
      expect.stringMatching(/^QUEUE_PREFIX: must be a hash tag such as \{botfleet\}.*share a cluster slot/),
    ]);
  });

  it('turns TLS on with any file, and keeps the files as paths that exist and can be read', () => {
    const ca = file('ca.pem');
    const cert = file('client.pem');
    const key = file('client.key');
    const env = parseEnv({
      REDIS_CLUSTER_NODES: 'n:7000',
      REDIS_TLS_CA_FILE: ca,
      REDIS_TLS_CERT_FILE: cert,
      REDIS_TLS_KEY_FILE: key,
    });
    expect(env.redis.tls).toEqual({ caFile: ca, certFile: cert, keyFile: key });
    expect(parseEnv({ REDIS_TLS_CA_FILE: ca }).redis.tls).toEqual({ caFile: ca });
  });

  it.each<[string, Record<string, string>, RegExp]>([
    [
      'a URL of another scheme',
      { REDIS_URL: 'http://redis:6379' },
      /^REDIS_URL: must start with redis:\/\/ or rediss:\/\//,
    ],
    ['a URL that is not one', { REDIS_URL: 'redis host' }, /^REDIS_URL: must be a URL/],
    ['a database that is not a number', { REDIS_URL: 'redis://h:6379/x' }, /^REDIS_URL: must name the database/],
    ['sentinels without a master name', { REDIS_SENTINELS: 's:26379' }, /^REDIS_SENTINEL_MASTER: is required/],
    ['a master name without sentinels', { REDIS_SENTINEL_MASTER: 'm' }, /^REDIS_SENTINEL_MASTER: is only used/],
    [
      'a sentinel password without sentinels',
      { REDIS_SENTINEL_PASSWORD: 'x' },
      /^REDIS_SENTINEL_PASSWORD: is only used/,
    ],
    [
      'a master name with spaces',
      { REDIS_SENTINELS: 's:1', REDIS_SENTINEL_MASTER: 'm m' },
      /^REDIS_SENTINEL_MASTER: must be/,
    ],
    [
      'a sentinel with no port',
      { REDIS_SENTINELS: 's1', REDIS_SENTINEL_MASTER: 'm' },
      /^REDIS_SENTINELS: "s1" is not host:port/,
    ],
    ['a port out of range', { REDIS_CLUSTER_NODES: 'n:70000' }, /^REDIS_CLUSTER_NODES: "n:70000" is not host:port/],
    ['a port of zero', { REDIS_CLUSTER_NODES: 'n:0' }, /^REDIS_CLUSTER_NODES: "n:0" is not host:port/],
    ['a URL among the nodes', { REDIS_CLUSTER_NODES: 'redis://n:7000' }, /^REDIS_CLUSTER_NODES: .* is not host:port/],
    ['an empty list', { REDIS_CLUSTER_NODES: ' , ' }, /^REDIS_CLUSTER_NODES: must list at least one host:port/],
    [
      'both sentinels and cluster nodes',
      { REDIS_SENTINELS: 's:26379', REDIS_SENTINEL_MASTER: 'm', REDIS_CLUSTER_NODES: 'n:7000' },
      /^REDIS_CLUSTER_NODES: cannot be set together with REDIS_SENTINELS/,
    ],
    [
      'a cluster database other than 0',
      { REDIS_CLUSTER_NODES: 'n:7000', REDIS_URL: 'redis://x/1' },
      /^REDIS_URL: selects database 1/,
    ],
    ['a user without a password', { REDIS_USERNAME: 'app' }, /^REDIS_USERNAME: needs a password too/],
    [
      'a password in two places',
      { REDIS_URL: 'redis://:a@h', REDIS_PASSWORD: 'b' },
      /^REDIS_PASSWORD: is also given in REDIS_URL/,
    ],
    [
      'a user in two places',
      { REDIS_URL: 'redis://u:a@h', REDIS_USERNAME: 'v' },
      /^REDIS_USERNAME: is also given in REDIS_URL/,
    ],
    ['a prefix with a colon', { QUEUE_PREFIX: 'bot:fleet' }, /^QUEUE_PREFIX: must be letters/],
    ['a half-open hash tag', { QUEUE_PREFIX: '{botfleet' }, /^QUEUE_PREFIX: must be letters/],
    ['a hash tag with a suffix', { QUEUE_PREFIX: '{a}b' }, /^QUEUE_PREFIX: must be letters/],
    [
      'a CA file that does not exist',
      { REDIS_TLS_CA_FILE: '/nonexistent/ca.pem' },
      /^REDIS_TLS_CA_FILE: \/nonexistent\/ca.pem cannot be read \(ENOENT\)/,
    ],
    ['a CA file that is a directory', { REDIS_TLS_CA_FILE: tmpdir() }, /^REDIS_TLS_CA_FILE: .* is not a file/],
  ])('refuses %s, naming the variable', (_case, env, problem) => {
    expect(problemsOf(env)).toEqual([expect.stringMatching(problem)]);
  });

  it('refuses a client certificate without its key, and a key it cannot read', () => {
    expect(problemsOf({ REDIS_TLS_CERT_FILE: file('only-cert.pem') })).toEqual([
      expect.stringMatching(/^REDIS_TLS_KEY_FILE: a client certificate needs both/),
    ]);
    const unreadable = file('unreadable.key');
    chmodSync(unreadable, 0o000);
    // root reads any file whatever its mode; the check only means something for other users.
    if (process.getuid?.() !== 0) {
      expect(problemsOf({ REDIS_TLS_CERT_FILE: file('c.pem'), REDIS_TLS_KEY_FILE: unreadable })).toEqual([
        expect.stringMatching(/^REDIS_TLS_KEY_FILE: .* cannot be read \(EACCES\)/),
      ]);
    }
  });

  it('reports every problem at once', () => {
    expect(problemsOf({ REDIS_URL: 'ftp://x', REDIS_SENTINELS: 'bad', QUEUE_PREFIX: 'a b' })).toHaveLength(4);
  });

  it('never puts a password into an error message', () => {
    const problems = problemsOf({ REDIS_URL: 'redis://:hunter2@h:6379/x', REDIS_PASSWORD: 'hunter3' });
    expect(problems.join('\n')).not.toMatch(/hunter/);
  });
});
