import { createLogger } from '@botfleet/core';
import { createTestPrismaClient } from '@botfleet/db/testing';
import { testRedisUrl } from '@botfleet/testkit';
import { startWorker } from '../start-worker';

/*
 * A worker in a process of its own, for crash tests: the test SIGKILLs it mid-run. Settings come
 * from the environment the test passes (this file is test tooling, not the app's entry point).
 */
async function main(): Promise<void> {
  const db = createTestPrismaClient({ poolSize: 2 });
  await startWorker({
    db,
    redisUrl: testRedisUrl(),
    queuePrefix: process.env.QUEUE_PREFIX!,
    logger: createLogger({ level: 'silent' }),
    concurrency: 1,
    proxyUrls: [],
    defaultTimeoutSeconds: 60,
    lockDurationMs: Number(process.env.LOCK_DURATION_MS ?? 3_000),
    stalledIntervalMs: 1_000,
    sweepOrganizationId: process.env.SWEEP_ORGANIZATION_ID,
  });
  process.stdout.write('worker ready\n');
}

void main();
