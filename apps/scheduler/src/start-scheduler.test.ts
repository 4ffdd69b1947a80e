import { redisSettingsFromUrl } from '@botfleet/core';
import { createTestPrismaClient } from '@botfleet/db/testing';
import { Writable } from 'node:stream';
import pino from 'pino';
import { startScheduler } from './start-scheduler';

it('starts and stops within its deadlines while Redis is unreachable, logging instead of crashing', async () => {
  const lines: { level: number; msg: string }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  const logger = pino({ level: 'info' }, sink);
  const db = createTestPrismaClient({ poolSize: 1 });
  try {
    const started = Date.now();
    // Nothing listens on port 1: every connection attempt is refused and retried.
    const scheduler = await startScheduler({
      db,
      redis: redisSettingsFromUrl('redis://127.0.0.1:1'),
      queuePrefix: 'test-unreachable',
      logger,
      drainTimeoutMs: 1_000,
    });
    // Generous for a loaded machine; what it rules out is waiting for Redis for ever.
    expect(Date.now() - started).toBeLessThan(20_000);
    await scheduler.stop();
    expect(Date.now() - started).toBeLessThan(30_000);
  } finally {
    await db.$disconnect();
  }
  expect(lines.some((l) => l.level >= 40 && /redis/i.test(l.msg))).toBe(true);
  expect(lines.at(-1)?.msg).toBe('scheduler stopped');

  // Nothing keeps reconnecting (or logging) once stopped: a leaked connection would.
  const count = lines.length;
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect(lines.slice(count)).toEqual([]);
});
