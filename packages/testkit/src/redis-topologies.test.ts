import IORedis, { Cluster } from 'ioredis';
import { listProcesses } from './processes';
import { startRedisCluster, startRedisSentinel } from './redis-topologies';

/*
 * The topologies the engine tests run on are real: a cluster that spreads keys over its masters
 * and refuses cross-slot work, and sentinels a client finds its master through. And they leave
 * nothing behind.
 */

function redisServersOn(ports: readonly number[]): number {
  return listProcesses().filter(
    (p) => p.command.startsWith('redis-server') && ports.some((port) => p.command.includes(`:${port}`)),
  ).length;
}

it('starts a three-master cluster that keeps a hash tag in one slot and refuses cross-slot commands', async () => {
  const cluster = await startRedisCluster();
  const client = new Cluster(cluster.nodes.map(({ host, port }) => ({ host, port })));
  try {
    expect(cluster.nodesSetting.split(',')).toHaveLength(3);
    await client.mset('{tag}:a', '1', '{tag}:b', '2');
    expect(await client.mget('{tag}:a', '{tag}:b')).toEqual(['1', '2']);
    await expect(client.mset('a', '1', 'b', '2')).rejects.toThrow(/CROSSSLOT/);
    expect(redisServersOn(cluster.nodes.map((n) => n.port))).toBe(3);
  } finally {
    client.disconnect();
    await cluster.stop();
  }
  expect(redisServersOn(cluster.nodes.map((n) => n.port))).toBe(0);
}, 120_000);

it('starts a master, a replica and three sentinels that agree on it, and leaves nothing behind', async () => {
  const topology = await startRedisSentinel('topology-test');
  const sentinels = topology.sentinelsSetting.split(',').map((hostPort) => {
    const [host, port] = hostPort.split(':');
    return { host: host!, port: Number(port) };
  });
  const client = new IORedis({ sentinels, name: topology.masterName, maxRetriesPerRequest: null });
  client.on('error', () => undefined);
  const ports = sentinels.map((s) => s.port);
  try {
    const master = await topology.currentMaster();
    ports.push(master.port);
    // A client that asks the sentinels reaches the master they name, and writes reach the replica.
    await client.set('through-sentinels', 'yes', 'EX', 60);
    expect(await client.wait(1, 10_000)).toBe(1);
    expect(redisServersOn(ports)).toBe(sentinels.length + 1);
    // The failover itself (killMaster, waitForFailover) is what redis-sentinel.e2e.test.ts does.
  } finally {
    client.disconnect();
    await topology.stop();
  }
  expect(redisServersOn(ports)).toBe(0);
}, 120_000);
