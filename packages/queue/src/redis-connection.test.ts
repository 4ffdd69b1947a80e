import { parseEnv, redisSettingsFromUrl, settlesWithin, type RedisSettings } from '@botfleet/core';
import IORedis, { Cluster } from 'ioredis';
import { testRedisUrl } from '@botfleet/testkit';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRedisConnection, isCluster, type RedisConnection } from './redis-connection';

/*
 * Which client the one factory builds for each mode and kind, with which options. The clients
 * point at a closed port and are closed at once: the real engines are redis-cluster.test.ts and
 * redis-sentinel.test.ts.
 */
const opened: RedisConnection[] = [];
function build(settings: RedisSettings, kind: 'producer' | 'worker' | 'subscriber') {
  const connection = createRedisConnection(settings, kind);
  connection.on('error', () => undefined);
  opened.push(connection);
  return connection;
}
afterAll(async () => {
  // Each client ends its reconnect timers as it reaches 'end'.
  const ended = opened
    .filter((connection) => connection.status !== 'end')
    .map((connection) => new Promise<void>((resolve) => connection.once('end', () => resolve())));
  for (const connection of opened) connection.disconnect();
  await settlesWithin(Promise.all(ended), 5_000);
});

const dir = mkdtempSync(join(tmpdir(), 'botfleet-redis-tls-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const pem = (name: string) => {
  const path = join(dir, name);
  writeFileSync(path, `${name} contents`);
  return path;
};

describe('createRedisConnection', () => {
  it('builds one Redis for REDIS_URL: producers fail fast, workers retry for ever', () => {
    const settings = redisSettingsFromUrl('redis://app:pw@127.0.0.1:1/4');
    const producer = build(settings, 'producer');
    expect(producer).toBeInstanceOf(IORedis);
    expect(isCluster(producer)).toBe(false);
    expect((producer as IORedis).options).toMatchObject({
      host: '127.0.0.1',
      port: 1,
      db: 4,
      username: 'app',
      password: 'pw',
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
    });
    expect((producer as IORedis).options.tls).toBeUndefined();
    expect((build(settings, 'worker') as IORedis).options.maxRetriesPerRequest).toBeNull();
    expect((build(settings, 'subscriber') as IORedis).options.maxRetriesPerRequest).toBeNull();
  });

  it('finds the master through the sentinels, with TLS files read for data nodes and sentinels alike', () => {
    const ca = pem('ca.pem');
    const { redis } = parseEnv({
      REDIS_SENTINELS: '127.0.0.1:1,127.0.0.1:2',
      REDIS_SENTINEL_MASTER: 'mymaster',
      REDIS_SENTINEL_PASSWORD: 'sentinel-pw',
      REDIS_PASSWORD: 'data-pw',
      REDIS_TLS_CA_FILE: ca,
      REDIS_TLS_CERT_FILE: pem('cert.pem'),
      REDIS_TLS_KEY_FILE: pem('key.pem'),
    });
    const connection = build(redis, 'worker') as IORedis;
    expect(connection).toBeInstanceOf(IORedis);
    expect(connection.options).toMatchObject({
      sentinels: [
        { host: '127.0.0.1', port: 1 },
        { host: '127.0.0.1', port: 2 },
      ],
      name: 'mymaster',
      role: 'master',
      sentinelPassword: 'sentinel-pw',
      password: 'data-pw',
      enableTLSForSentinelMode: true,
      maxRetriesPerRequest: null,
    });
    expect(connection.options.tls).toEqual({
      ca: Buffer.from('ca.pem contents'),
      cert: Buffer.from('cert.pem contents'),
      key: Buffer.from('key.pem contents'),
    });
    expect(connection.options.sentinelTLS).toEqual(connection.options.tls);
  });

  it('builds a Cluster client whose nodes carry the credentials and what BullMQ needs', () => {
    // The test Redis is no cluster: it refuses CLUSTER SLOTS at once, where a closed port would
    // leave a slots refresh waiting out its timeout after the test.
    const { hostname, port } = new URL(testRedisUrl());
    const { redis } = parseEnv({
      REDIS_CLUSTER_NODES: `${hostname}:${port || 6379}`,
      REDIS_URL: 'redis://app:pw@unused',
    });
    const worker = build(redis, 'worker');
    expect(worker).toBeInstanceOf(Cluster);
    expect(isCluster(worker)).toBe(true);
    const options = (worker as Cluster).options;
    expect(options.redisOptions).toMatchObject({ username: 'app', password: 'pw', maxRetriesPerRequest: null });
    expect(options.redisOptions?.tls).toBeUndefined();
    const producer = build(redis, 'producer') as Cluster;
    expect(producer.options).toMatchObject({ enableOfflineQueue: false, redisOptions: { maxRetriesPerRequest: 1 } });
  });
});
