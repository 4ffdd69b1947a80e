import { ExecutionStatusSchema } from '@botfleet/core';
import { z } from 'zod';
import type { RedisConnection } from './redis-connection';
import { executionEventsChannel } from './redis-keys';

/*
 * Execution notices, published on executionEventsChannel (redis-keys.ts): whoever changes a run
 * (the engine's status transitions, the worker's progress writes) publishes after the commit, and
 * each API process's one subscriber fans them out to its live event streams (docs/live-runs.md).
 */

/** What a notice says changed: the row's status (or attempt), its step outputs, its log lines. */
export const ExecutionChangeSchema = z.enum(['status', 'steps', 'logs']);
export type ExecutionChange = z.infer<typeof ExecutionChangeSchema>;

/**
 * A notice is small and carries no run data: readers take what is new from the database, the
 * truth. The status fields let the organization stream answer without a read: `status` and
 * `attempt` as the publisher wrote them, `at` when it published (after the commit, so never
 * before the row's `updatedAt`).
 */
export const ExecutionNoticeSchema = z.object({
  executionId: z.string(),
  organizationId: z.string(),
  botId: z.string(),
  status: ExecutionStatusSchema,
  attempt: z.number().int().min(0),
  changed: z.array(ExecutionChangeSchema).min(1),
  at: z.number().int(),
});
export type ExecutionNotice = z.infer<typeof ExecutionNoticeSchema>;

/** Publishes notices on the channel, one PUBLISH each; the caller treats a failure as best effort. */
export async function publishExecutionNotices(
  redis: Pick<RedisConnection, 'publish'>,
  prefix: string,
  notices: Omit<ExecutionNotice, 'at'>[],
): Promise<void> {
  const channel = executionEventsChannel(prefix);
  await Promise.all(noticeMessages(notices).map((message) => redis.publish(channel, message)));
}

/** The messages of notices as the channel carries them, stamped now (after the commit they tell of). */
export function noticeMessages(notices: Omit<ExecutionNotice, 'at'>[]): string[] {
  const at = Date.now();
  return notices.map((notice) => JSON.stringify({ ...notice, at }));
}

/** A message heard on the channel, or null for one that is not a notice (never trusted blindly). */
export function parseExecutionNotice(message: string): ExecutionNotice | null {
  try {
    const parsed = ExecutionNoticeSchema.safeParse(JSON.parse(message));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
