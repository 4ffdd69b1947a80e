import { createApiHarness, type ApiHarness, type TestOrg } from '@botfleet/api/testing';
import { type RoleHandle, redisSettingsFromUrl } from '@botfleet/core';
import { deleteBotsOfOrganization } from '@botfleet/db';
import { createCompletedExecutionWithDelivery } from '@botfleet/db/testing';
import { createLogger } from '@botfleet/io';
import { webhookDeliver } from '@botfleet/queue';
import { testRedisUrl } from '@botfleet/testkit';
import request from 'supertest';
import { startDelivery, type StartDeliveryOptions } from '../start-delivery';

/*
 * Test-only: a real API (for bots, manifests and the deliveries endpoint), real PostgreSQL and
 * Redis, and delivery roles on the harness's own queue prefix so test files never share jobs.
 */

export interface DeliveryFixture {
  h: ApiHarness;
  org: TestOrg;
  /** Starts a delivery role (allowPrivateNetwork and short delays unless overridden); stopped by close(). */
  startRole(overrides?: Partial<StartDeliveryOptions>): Promise<RoleHandle>;
  /** A bot whose manifest has this webhook section; returns its id. */
  newBot(webhook: Record<string, unknown>): Promise<string>;
  /** A completed execution row with this data, plus its delivery, created and (by default) enqueued. */
  completeRun(
    botId: string,
    data: unknown,
    options?: { enqueue?: boolean },
  ): Promise<{ executionId: string; deliveryId: string }>;
  /** GET /executions/:executionId/deliveries as the owner. */
  deliveries(executionId: string): Promise<request.Response>;
  close(): Promise<void>;
}

export async function createDeliveryFixture(): Promise<DeliveryFixture> {
  const h = await createApiHarness();
  const org = await h.newOrg();
  const roles: RoleHandle[] = [];

  return {
    h,
    org,
    async startRole(overrides = {}) {
      const role = await startDelivery({
        db: h.db,
        redis: redisSettingsFromUrl(testRedisUrl()),
        queuePrefix: h.queues.prefix,
        logger: createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
        secretBox: h.deps.secretBox,
        concurrency: 4,
        allowPrivateNetwork: true,
        webhookTimeoutMs: 2_000,
        retryDelaysMs: [50, 100],
        sweepIntervalMs: 100,
        sweepOrganizationId: org.id,
        drainTimeoutMs: 5_000,
        ...overrides,
      });
      roles.push(role);
      return role;
    },
    newBot: (webhook) => h.newBot(org, { name: 'hook' }, { manifest: { webhook } }),
    async completeRun(botId, data, options = {}) {
      // What the execution worker does: complete the run and create its delivery in one
      // transaction, then enqueue the first attempt after the commit.
      const { executionId, deliveryId } = await createCompletedExecutionWithDelivery(h.db, {
        botId,
        organizationId: org.id,
        extractedData: data,
      });
      if (!deliveryId) throw new Error('no delivery created');
      if (options.enqueue !== false) await webhookDeliver.enqueue(h.queues, { deliveryId }, { attempt: 1 });
      return { executionId, deliveryId };
    },
    deliveries: (executionId) =>
      request(h.app).get(`/api/v1/executions/${executionId}/deliveries`).set(org.auth('read')),
    async close() {
      await Promise.all(roles.map((role) => role.stop()));
      await h.queues.get(webhookDeliver.queue).obliterate({ force: true });
      await deleteBotsOfOrganization(h.db, org.id);
      await h.close();
    },
  };
}
