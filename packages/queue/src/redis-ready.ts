import type IORedis from 'ioredis';

/**
 * A readiness check for a Redis connection: fails at once while it is not connected (a worker
 * connection would otherwise queue the PING until Redis returns), else waits for a PING.
 */
export async function redisReady(connection: IORedis): Promise<void> {
  if (connection.status !== 'ready') throw new Error(`redis connection is ${connection.status}`);
  await connection.ping();
}
