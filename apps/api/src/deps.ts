import type { Logger, SecretBox } from '@botfleet/core';
import type { ArtifactStore } from '@botfleet/artifacts';
import type { PrismaClient } from '@botfleet/db';
import type { Ops } from '@botfleet/ops';
import type { Queues, RedisConnection } from '@botfleet/queue';
import type { LiveEvents } from './live/live-events';
import type { StreamSlots } from './live/stream-slots';

/** Everything the API needs, built once by the launcher (or by a test) and passed in. */
export interface ApiDeps {
  db: PrismaClient;
  redis: RedisConnection;
  queues: Queues;
  logger: Logger;
  secretBox: SecretBox;
  settings: ApiSettings;
  /** The process's live fan-out behind the event streams (live/start-live-events.ts). */
  liveEvents: LiveEvents;
  /** The caps on streams open at once (live/stream-slots.ts); every long-lived stream takes a slot. */
  streamSlots: StreamSlots;
  /** Where artifacts' content lies (ARTIFACT_STORE): downloads stream from it, deleted bots' objects go. PostgreSQL when omitted. */
  artifactStore?: ArtifactStore;
  /**
   * The process's metrics registry and readiness checks, shared with the other roles it runs, so
   * /readyz on PORT covers them all (its metrics are served on OPS_PORT only, never on PORT).
   * Omitted (tests): the app makes its own.
   */
  ops?: Ops;
}

export interface ApiSettings {
  bodyLimitBytes: number;
  /** Time a client has to send a whole request; a slower body is cut off with 408. */
  requestTimeoutMs: number;
  /** Absolute base for URLs the API hands out (signed screenshot URLs, Location headers). */
  publicBaseUrl: string;
  minScheduleIntervalSeconds: number;
  /** MAX_PENDING_EXECUTIONS_PER_ORG: triggers past it answer 429 (default 10,000). */
  maxPendingExecutionsPerOrg?: number;
  /** MAX_RUNNING_EXECUTIONS_PER_ORG, shown by GET /organization (the workers enforce it; unset: no cap). */
  maxRunningExecutionsPerOrg?: number;
  /** MAX_API_KEYS_PER_ORG: creating a key past it answers 409 limit_reached (default 100). */
  maxApiKeysPerOrg?: number;
  screenshotUrlTtlSeconds: number;
  /** Key for signing artifact URLs (derived from SECRETS_KEY). */
  urlSigningKey: Buffer;
  /**
   * Requests per minute per API key, and per organization unless the operator set it a rate of
   * its own (RATE_LIMIT_PER_MINUTE); 0 turns the default off.
   */
  rateLimitPerMinute: number;
  /** ALLOW_PRIVATE_NETWORK for webhook test sends; closed (public addresses only) when unset. */
  allowPrivateNetwork?: boolean;
  /** WEBHOOK_TIMEOUT_MS for webhook test sends (default 10 s). */
  webhookTimeoutMs?: number;
  /** OPS_ADMIN_TOKEN: the Basic password of /admin/queues; unset turns the board off. */
  opsAdminToken?: string;
  /** SSE_HEARTBEAT_SECONDS: how often open event streams get a heartbeat comment (default 15 s). */
  sseHeartbeatSeconds?: number;
  /** MAX_STREAMS_PER_ORG: streams one organization may have open at once, fleet-wide (default 100). */
  maxStreamsPerOrg?: number;
  /** MAX_STREAMS_PER_KEY: streams one API key may have open at once, fleet-wide (default 50). */
  maxStreamsPerKey?: number;
  /** MAX_STREAMS_PER_PROCESS: streams this process may hold; unset: derived from its open-file limit. */
  maxStreamsPerProcess?: number;
  /** DATABASE_POOL_SIZE, which the derived process cap leaves file descriptors for. */
  databasePoolSize?: number;
}
