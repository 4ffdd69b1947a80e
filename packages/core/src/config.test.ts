import { ConfigError, parseEnv } from './config';

describe('parseEnv', () => {
  it('applies the documented defaults', () => {
    const env = parseEnv({});
    expect(env).toMatchObject({
      PORT: 3000,
      ROLES: ['api', 'worker', 'delivery', 'scheduler'],
      ALLOW_PRIVATE_NETWORK: true,
      MIN_SCHEDULE_INTERVAL_SECONDS: 60,
      WEBHOOK_RETRY_DELAYS_MS: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
      DEFAULT_TIMEOUT_SECONDS: 60,
      PROXY_URLS: [],
      REQUEST_TIMEOUT_SECONDS: 30,
      EXECUTION_LOCK_SECONDS: 30,
      STALLED_CHECK_SECONDS: 30,
      SWEEP_INTERVAL_SECONDS: 30,
    });
  });

  it('keeps every execution unless EXECUTION_RETENTION_DAYS is a positive number of days', () => {
    expect(parseEnv({}).EXECUTION_RETENTION_DAYS).toBeUndefined();
    expect(parseEnv({ EXECUTION_RETENTION_DAYS: '' }).EXECUTION_RETENTION_DAYS).toBeUndefined();
    expect(parseEnv({ EXECUTION_RETENTION_DAYS: '30' }).EXECUTION_RETENTION_DAYS).toBe(30);
    for (const bad of ['0', '-1', '1.5', '30d', '100000']) {
      expect(() => parseEnv({ EXECUTION_RETENTION_DAYS: bad })).toThrow(/EXECUTION_RETENTION_DAYS:/);
    }
  });

  it('closes the private network in production unless told otherwise', () => {
    expect(parseEnv({ NODE_ENV: 'production' }).ALLOW_PRIVATE_NETWORK).toBe(false);
    expect(parseEnv({ NODE_ENV: 'production', ALLOW_PRIVATE_NETWORK: 'true' }).ALLOW_PRIVATE_NETWORK).toBe(true);
    expect(parseEnv({ NODE_ENV: 'development' }).ALLOW_PRIVATE_NETWORK).toBe(true);
    expect(parseEnv({ NODE_ENV: 'test', ALLOW_PRIVATE_NETWORK: 'false' }).ALLOW_PRIVATE_NETWORK).toBe(false);
  });

  it('parses lists, booleans and numbers', () => {
    const env = parseEnv({
      ROLES: 'api, worker',
      PROXY_URLS: 'http://p1:8080,http://user:pw@p2:3128',
      ALLOW_PRIVATE_NETWORK: 'false',
      WEBHOOK_RETRY_DELAYS_MS: '10,20',
      WORKER_CONCURRENCY: '4',
      SECRETS_KEY: 'a'.repeat(64),
    });
    expect(env.ROLES).toEqual(['api', 'worker']);
    expect(env.PROXY_URLS).toEqual(['http://p1:8080', 'http://user:pw@p2:3128']);
    expect(env.ALLOW_PRIVATE_NETWORK).toBe(false);
    expect(env.WEBHOOK_RETRY_DELAYS_MS).toEqual([10, 20]);
    expect(env.WORKER_CONCURRENCY).toBe(4);
  });

  it.each([
    ['PORT', 'abc'],
    ['ROLES', 'api,web'],
    ['DATABASE_URL', 'not a url'],
    ['SECRETS_KEY', 'too-short'],
    ['ALLOW_PRIVATE_NETWORK', 'maybe'],
    ['WEBHOOK_RETRY_DELAYS_MS', '5s,10s'],
    ['WORKER_CONCURRENCY', '0'],
    ['REQUEST_TIMEOUT_SECONDS', '0'],
    ['EXECUTION_LOCK_SECONDS', '1'],
    ['EXECUTION_RETENTION_DAYS', '0'],
  ])('names %s when its value is bad', (name, value) => {
    expect(() => parseEnv({ [name]: value })).toThrow(ConfigError);
    try {
      parseEnv({ [name]: value });
    } catch (err) {
      expect((err as ConfigError).message).toContain(`${name}:`);
    }
  });
});
