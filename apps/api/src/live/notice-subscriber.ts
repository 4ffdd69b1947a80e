import { repeatedLog, type Logger, type RedisSettings } from '@botfleet/core';
import {
  closeRedis,
  createRedisConnection,
  executionEventsChannel,
  parseExecutionNotice,
  type ExecutionNotice,
} from '@botfleet/queue';

export interface NoticeSubscriber {
  close(): Promise<void>;
}

/**
 * The API process's one subscription to the execution notices, whatever the number of streams:
 * a connection from the one factory (standalone, Sentinel or Cluster; ioredis subscribes again
 * after each reconnect). Notices published while it was away are lost, so once subscribed and
 * after each reconnect `onResubscribed` lets every followed run read once.
 */
export function subscribeToExecutionNotices(options: {
  redis: RedisSettings;
  prefix: string;
  logger: Logger;
  onNotice: (notice: ExecutionNotice) => void;
  onResubscribed: () => void;
  /**
   * Whether anyone here listens now. Every process hears every notice of the fleet (one per
   * trigger and per status change), so with no stream open a message is dropped unread.
   */
  listening: () => boolean;
}): NoticeSubscriber {
  const { logger } = options;
  const subscriber = createRedisConnection(options.redis, 'subscriber');
  subscriber.on('error', (err: Error) =>
    repeatedLog.warn(logger, { err: err.message }, 'execution notice subscriber connection error'),
  );
  const channel = executionEventsChannel(options.prefix);
  subscriber.on('message', (from: string, message: string) => {
    if (from !== channel || !options.listening()) return;
    const notice = parseExecutionNotice(message);
    if (notice) options.onNotice(notice);
    else repeatedLog.warn(logger, { channel }, 'ignored a message that is not an execution notice');
  });
  // Not awaited: while Redis is away the API still starts (answering /readyz 503, streams from the
  // database) and the subscription is made when Redis comes. The connection queues the command
  // until then and ioredis subscribes again after every reconnect.
  let everSubscribed = false;
  subscriber.subscribe(channel).then(
    () => {
      everSubscribed = true;
      // Streams opened before Redis came may have missed notices: each followed run reads once.
      options.onResubscribed();
    },
    (err: Error) => repeatedLog.warn(logger, { err: err.message }, 'execution notice subscription failed'),
  );
  subscriber.on('ready', () => {
    if (everSubscribed) options.onResubscribed();
  });
  return {
    async close() {
      await closeRedis(subscriber);
    },
  };
}
