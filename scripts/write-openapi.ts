/**
 * Writes the API's OpenAPI document to openapi.json at the repository root, the file API
 * consumers' tools read and packages/sdk is generated from. Run it after changing a route:
 * `npm run openapi` (then `npm run sdk:generate`). apps/api/src/openapi/openapi-file.test.ts fails
 * while the committed file differs from what the API serves.
 *
 * Needs no database or Redis: building the route table connects to nothing, and the document
 * depends only on the routes and the default settings (MIN_SCHEDULE_INTERVAL_SECONDS appears in a
 * summary).
 */
import { apiDocument, apiRoutes, createIdleLiveEvents, createStreamSlots, type ApiSettings } from '@botfleet/api';
import { createSecretBox, parseEnv } from '@botfleet/core';
import { createPrismaClient } from '@botfleet/db';
import { createLogger } from '@botfleet/io';
import { createQueues } from '@botfleet/queue';
import IORedis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const OPENAPI_FILE = join(__dirname, '..', 'openapi.json');

async function main(): Promise<void> {
  const env = parseEnv({});
  // Never used: nothing queries or enqueues while the document is built.
  const db = createPrismaClient('postgresql://openapi@127.0.0.1:1/unused');
  const redis = new IORedis({ lazyConnect: true });
  const logger = createLogger({ level: 'silent' });
  const settings: ApiSettings = {
    bodyLimitBytes: env.BODY_LIMIT_BYTES,
    requestTimeoutMs: env.REQUEST_TIMEOUT_SECONDS * 1000,
    publicBaseUrl: `http://localhost:${env.PORT}`,
    minScheduleIntervalSeconds: env.MIN_SCHEDULE_INTERVAL_SECONDS,
    screenshotUrlTtlSeconds: env.SCREENSHOT_URL_TTL_SECONDS,
    urlSigningKey: randomBytes(32),
    rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
  };
  const liveEvents = createIdleLiveEvents(db, logger, settings);
  const routes = apiRoutes({
    db,
    redis,
    queues: createQueues(redis, 'openapi'),
    liveEvents,
    // Never acquired: slots are taken per request.
    streamSlots: createStreamSlots({
      redis,
      prefix: 'openapi',
      limits: { perOrganization: 1, perKey: 1, perProcess: 1 },
      logger,
    }),
    logger,
    secretBox: createSecretBox(randomBytes(32)),
    settings,
  });
  writeFileSync(OPENAPI_FILE, `${JSON.stringify(apiDocument(routes), null, 2)}\n`);
  liveEvents.close();
  redis.disconnect();
  await db.$disconnect();
  console.log(`wrote ${OPENAPI_FILE}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
