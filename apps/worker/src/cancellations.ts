import { repeatedLog, type Logger, type RedisSettings } from '@botfleet/core';
import { cancelChannel, closeRedis, createRedisConnection } from '@botfleet/queue';

/**
 * Listens for cancellations published by the API and aborts the matching runs in this process.
 * A missed message is harmless: the cancelled row is final, so the run cannot write its result.
 */
export async function listenForCancellations(redis: RedisSettings, prefix: string, logger: Logger) {
  const running = new Map<string, AbortController>();
  const subscriber = createRedisConnection(redis, 'subscriber');
  subscriber.on('error', (err: Error) =>
    repeatedLog.warn(logger, { err: err.message }, 'cancellation listener connection error'),
  );
  subscriber.on('message', (_channel: string, executionId: string) => {
    const controller = running.get(executionId);
    if (controller) {
      logger.info({ executionId }, 'cancelling running execution');
      controller.abort();
    }
  });
  await subscriber.subscribe(cancelChannel(prefix));

  return {
    /** Tracks a run; the returned signal aborts when the execution is cancelled. */
    track(executionId: string): { signal: AbortSignal; done(): void } {
      const controller = new AbortController();
      running.set(executionId, controller);
      return { signal: controller.signal, done: () => running.delete(executionId) };
    },
    async close(): Promise<void> {
      await closeRedis(subscriber);
    },
  };
}

export type Cancellations = Awaited<ReturnType<typeof listenForCancellations>>;
