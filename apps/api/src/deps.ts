import type { Logger, SecretBox } from '@botfleet/core';
import type { PrismaClient } from '@botfleet/db';
import type { Queues, RedisConnection } from '@botfleet/queue';

/** Everything the API needs, built once by the launcher (or by a test) and passed in. */
export interface ApiDeps {
  db: PrismaClient;
  redis: RedisConnection;
  queues: Queues;
  logger: Logger;
  secretBox: SecretBox;
  settings: ApiSettings;
}

export interface ApiSettings {
  bodyLimitBytes: number;
  /** Time a client has to send a whole request; a slower body is cut off with 408. */
  requestTimeoutMs: number;
  /** Absolute base for URLs the API hands out (signed screenshot URLs, Location headers). */
  publicBaseUrl: string;
  minScheduleIntervalSeconds: number;
  screenshotUrlTtlSeconds: number;
  /** Key for signing artifact URLs (derived from SECRETS_KEY). */
  urlSigningKey: Buffer;
  /** Requests per minute per API key (RATE_LIMIT_PER_MINUTE); 0 turns the limit off. */
  rateLimitPerMinute: number;
}
