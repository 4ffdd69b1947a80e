import { redisSettingsFromUrl } from '@botfleet/core';
import { createTestPrismaClient } from '@botfleet/db/testing';
import { createLogger } from '@botfleet/io';
import { testRedisUrl } from '@botfleet/testkit';
import { startWorker } from '../start-worker';

/*
 * A worker in a process of its own, for crash and shutdown tests: the test SIGKILLs it mid-run,
 * or SIGTERMs it and expects a drain and exit 0. Settings come from the environment the test
 * passes (this file is test tooling, not the app's entry point).
 */
async function main(): Promise<void> {
  const db = createTestPrismaClient({ poolSize: 2 });
  const worker = await startWorker({
    db,
    redis: redisSettingsFromUrl(testRedisUrl()),
    queuePrefix: process.env.QUEUE_PREFIX!,
    // WORKER_LOG_LEVEL lets a test read the worker's own log lines on its stdout.
    logger: createLogger({ level: process.env.WORKER_LOG_LEVEL ?? 'silent' }),
    concurrency: Number(process.env.CONCURRENCY ?? 1),
    proxyUrls: [],
    defaultTimeoutSeconds: 60,
    lockDurationMs: Number(process.env.LOCK_DURATION_MS ?? 3_000),
    stalledIntervalMs: 1_000,
    sweepOrganizationId: process.env.SWEEP_ORGANIZATION_ID,
    drainTimeoutMs: process.env.DRAIN_TIMEOUT_MS ? Number(process.env.DRAIN_TIMEOUT_MS) : undefined,
    maxInfraRetries: process.env.MAX_INFRA_RETRIES ? Number(process.env.MAX_INFRA_RETRIES) : undefined,
  });
  process.once('SIGTERM', () => {
    void worker
      .stop()
      .then(() => db.$disconnect())
      .then(() => process.exit(0));
  });
  process.stdout.write('worker ready\n');
}

void main();
