import type { ApiHarness, TestOrg } from '@botfleet/api/testing';
import { type RoleHandle, redisSettingsFromUrl } from '@botfleet/core';
import { startDelivery } from '@botfleet/delivery';
import { createLogger } from '@botfleet/io';
import { testRedisUrl } from '@botfleet/testkit';
import { startWorker, type WorkerOptions } from '../start-worker';

const testLogger = () => createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

/**
 * A worker on the API harness's queues, wired as the launcher wires it (the API's SecretBox, so it
 * opens the credentials and profiles the API sealed; the API's signing key and base URL, so the
 * API accepts its failure screenshots' URLs), sweeping only `org`'s runs.
 */
export function startTestWorker(
  api: ApiHarness,
  org: TestOrg,
  options: Partial<WorkerOptions> = {},
): Promise<RoleHandle> {
  return startWorker({
    db: api.db,
    redis: redisSettingsFromUrl(testRedisUrl()),
    queuePrefix: api.queues.prefix,
    logger: testLogger(),
    concurrency: 2,
    proxyUrls: [],
    defaultTimeoutSeconds: 30,
    sweepIntervalMs: 60_000,
    sweepOrganizationId: org.id,
    secretBox: api.deps.secretBox,
    artifactUrls: {
      signingKey: api.deps.settings.urlSigningKey,
      baseUrl: api.deps.settings.publicBaseUrl,
      ttlSeconds: api.deps.settings.screenshotUrlTtlSeconds,
    },
    ...options,
  });
}

/** A delivery role on the API harness's queues: fast retries, loopback receivers allowed. */
export function startTestDelivery(api: ApiHarness): Promise<RoleHandle> {
  return startDelivery({
    db: api.db,
    redis: redisSettingsFromUrl(testRedisUrl()),
    queuePrefix: api.queues.prefix,
    logger: testLogger(),
    secretBox: api.deps.secretBox,
    concurrency: 2,
    allowPrivateNetwork: true,
    webhookTimeoutMs: 2_000,
    retryDelaysMs: [100],
  });
}
