import { redisSettingsFromUrl } from '@botfleet/core';
import { createTestPrismaClient } from '@botfleet/db/testing';
import { webhookDeliver } from '@botfleet/queue';
import { testRedisUrl, uniqueQueuePrefix, waitUntil } from '@botfleet/testkit';
import { Writable } from 'node:stream';
import pino from 'pino';
import { defineFleetRole, type FleetRoleOptions } from './fleet-role';
import { createOps } from './ops';

const db = createTestPrismaClient({ poolSize: 2 });
afterAll(() => db.$disconnect());

interface LogLine {
  level: number;
  msg: string;
  role?: string;
}

function capturedLogger() {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as LogLine);
      done();
    },
  });
  return { lines, logger: pino({ level: 'info' }, sink) };
}

interface ProbeOptions extends FleetRoleOptions {
  /** What the role did, in order. */
  events: string[];
  /** Given: the consumer hands its jobs back at the drain deadline by ending them. */
  handBack: boolean;
}

/**
 * A role of the base's every kind of part: a consumer whose jobs run until released, a periodic
 * pass that waits for its stop, a readiness check of its own, and resources of its own.
 */
const probeRole = defineFleetRole({
  name: 'delivery',
  queueConnection: 'producer',
  async start({ consume, every, ready, queues }, options: ProbeOptions) {
    const { events } = options;
    const running = new Set<() => void>();
    consume(
      webhookDeliver,
      {
        concurrency: 2,
        abandonedMessage: 'probe jobs abandoned',
        onDrainDeadline: options.handBack
          ? () => {
              events.push('drain deadline');
              for (const end of running) end();
            }
          : undefined,
      },
      ({ deliveryId }) => {
        events.push(`job ${deliveryId} started`);
        return new Promise<void>((resolve) =>
          running.add(() => {
            events.push(`job ${deliveryId} ended`);
            resolve();
          }),
        );
      },
    );
    every({ name: 'probe pass', intervalMs: 60_000, runAtStart: true }, async (signal) => {
      events.push('pass started');
      await new Promise((resolve) => signal.addEventListener('abort', resolve));
      events.push('pass ended');
    });
    ready('probe', async () => undefined);
    return {
      extras: {
        enqueue: (deliveryId: string) => webhookDeliver.enqueue(queues, { deliveryId }, { attempt: 1 }),
        endJobs: () => {
          for (const end of running) end();
        },
      },
      close: () => {
        events.push('own resources closed');
      },
    };
  },
});

function startProbe(overrides: Partial<ProbeOptions> = {}) {
  const log = capturedLogger();
  const ops = createOps();
  const events: string[] = [];
  const started = probeRole.start({
    db,
    redis: redisSettingsFromUrl(testRedisUrl()),
    queuePrefix: uniqueQueuePrefix('test-fleet-role'),
    logger: log.logger,
    ops,
    drainTimeoutMs: 300,
    events,
    handBack: false,
    ...overrides,
  });
  return { started, ops, events, lines: log.lines };
}

/** Resolves with the readiness report once every check passes (the producer connection refuses commands before). */
function readyReport(ops: ReturnType<typeof createOps>) {
  return waitUntil(
    async () => {
      const report = await ops.readiness.run();
      return report.ready && report;
    },
    { message: 'the role to be ready' },
  );
}

it('is ready on its database, Redis and its own checks while it runs, and on none once stopped', async () => {
  const { started, ops, lines } = startProbe();
  const role = await started;
  const report = await readyReport(ops);
  expect(report.checks).toEqual({ database: 'ok', probe: 'ok', redis: 'ok' });
  expect(lines.find((l) => l.msg === 'delivery started')).toMatchObject({ role: 'delivery' });

  await role.stop();
  expect((await ops.readiness.run()).checks).toEqual({});
  expect(lines.at(-1)?.msg).toBe('delivery stopped');
});

it('drains jobs and passes under one deadline, hands jobs back at it, then closes what is its own', async () => {
  const { started, ops, events, lines } = startProbe({ handBack: true });
  const role = await started;
  await readyReport(ops);
  await role.enqueue('handed-back');
  await waitUntil(() => events.includes('job handed-back started'), { message: 'the job to start' });

  const stopping = Date.now();
  await role.stop();
  // The 300 ms deadline plus closing; far below the job, which would never end by itself.
  expect(Date.now() - stopping).toBeLessThan(10_000);
  expect(events.indexOf('drain deadline')).toBeGreaterThan(events.indexOf('job handed-back started'));
  expect(events.indexOf('job handed-back ended')).toBeGreaterThan(events.indexOf('drain deadline'));
  expect(events.indexOf('pass ended')).toBeGreaterThan(-1);
  expect(events.at(-1)).toBe('own resources closed');
  expect(lines.some((l) => l.msg === 'probe jobs abandoned')).toBe(false);
  expect(lines.at(-1)?.msg).toBe('delivery stopped');
});

it('abandons jobs still in flight after the deadline, says so, and stops once however often asked', async () => {
  const { started, ops, events, lines } = startProbe();
  const role = await started;
  await readyReport(ops);
  await role.enqueue('abandoned');
  await waitUntil(() => events.includes('job abandoned started'), { message: 'the job to start' });

  const first = role.stop();
  expect(role.stop()).toBe(first);
  await first;
  expect(lines.find((l) => l.msg === 'probe jobs abandoned')).toMatchObject({ level: 40 });
  expect(events).not.toContain('job abandoned ended');
  expect(events.at(-1)).toBe('own resources closed');
  expect(lines.filter((l) => l.msg === 'delivery stopped')).toHaveLength(1);
  // Let the abandoned job end before the database closes.
  role.endJobs();
});
