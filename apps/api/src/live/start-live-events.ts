import { createArtifactUrlSigner, type Logger, type RedisSettings } from '@botfleet/core';
import type { Db } from '@botfleet/db';
import type { ApiSettings } from '../deps';
import { toExecutionView } from '../views/execution.view';
import { toLogEntryView } from '../views/log-entry.view';
import { toStepOutputView } from '../views/step-output.view';
import { createLiveEvents, type LiveEvents } from './live-events';
import { subscribeToExecutionNotices } from './notice-subscriber';
import type { RunViews } from './run-events';

const DEFAULT_HEARTBEAT_SECONDS = 15;

/** Rows as the API shows them elsewhere (GET /executions/:id, its steps and logs). */
export function runViewsOf(settings: ApiSettings): RunViews {
  const signer = createArtifactUrlSigner(
    settings.urlSigningKey,
    settings.publicBaseUrl,
    settings.screenshotUrlTtlSeconds,
  );
  return {
    execution: (row) => toExecutionView(row),
    step: (step) => toStepOutputView(step, (artifactId) => signer.sign(artifactId)),
    log: toLogEntryView,
  };
}

/** The fan-out without a subscription: for building the route table alone (the OpenAPI document). */
export function createIdleLiveEvents(db: Db, logger: Logger, settings: ApiSettings): LiveEvents {
  return createLiveEvents({ db, logger, heartbeatMs: heartbeatMsOf(settings), views: runViewsOf(settings) });
}

const heartbeatMsOf = (settings: ApiSettings) => (settings.sseHeartbeatSeconds ?? DEFAULT_HEARTBEAT_SECONDS) * 1000;

/**
 * The API process's live fan-out with its one subscription to the execution notices. `stop`
 * ends every open stream first, so none holds the server's drain, then unsubscribes.
 */
export function startLiveEvents(options: {
  db: Db;
  logger: Logger;
  settings: ApiSettings;
  redis: RedisSettings;
  queuePrefix: string;
}): { live: LiveEvents; stop(): Promise<void> } {
  const live = createIdleLiveEvents(options.db, options.logger, options.settings);
  const subscriber = subscribeToExecutionNotices({
    redis: options.redis,
    prefix: options.queuePrefix,
    logger: options.logger,
    onNotice: (notice) => live.hear(notice),
    onResubscribed: () => live.resync(),
    listening: () => live.following(),
  });
  return {
    live,
    async stop() {
      live.close();
      await subscriber.close();
    },
  };
}
