import type { PrismaClient } from '../client';
import { isUniqueViolation } from '../database-errors';
import { createTestBot, useTestOrganization } from '../testing';
import { createExecution } from './executions';
import {
  countExecutionsPerSlot,
  findBotWithSchedule,
  findSchedule,
  findScheduledExecution,
  listRunnableSchedules,
  recordScheduledRun,
  saveSchedule,
  setScheduleNextRun,
} from './schedules';

let db: PrismaClient;
let organizationId: string;
// Afterwards the organization's bots go, so no active schedule is left for a running scheduler to find.
useTestOrganization(
  (client, id) => {
    db = client;
    organizationId = id;
  },
  { poolSize: 2 },
);

const newBot = () => createTestBot(db, organizationId);
const at = (ms: number) => new Date(Date.UTC(2026, 10, 21, 12) + ms);

describe('saveSchedule', () => {
  it('creates, then replaces the settings while keeping lastRunAt', async () => {
    const bot = await newBot();
    expect(await findSchedule(db, bot.id)).toBeNull();
    await saveSchedule(db, bot.id, { intervalSeconds: 60, active: true, nextRunAt: at(60_000) });
    await recordScheduledRun(db, {
      botId: bot.id,
      slot: at(60_000),
      nextRunAt: at(120_000),
      timing: { intervalSeconds: 60, cron: null, timezone: 'UTC' },
    });
    const saved = await saveSchedule(db, bot.id, { intervalSeconds: 300, active: false, nextRunAt: null });
    expect(saved).toMatchObject({
      botId: bot.id,
      intervalSeconds: 300,
      active: false,
      nextRunAt: null,
      lastRunAt: at(60_000),
    });
  });
});

describe('listRunnableSchedules', () => {
  it('lists active schedules of active bots only', async () => {
    const [running, off, paused, none] = [await newBot(), await newBot(), await newBot(), await newBot()];
    await saveSchedule(db, running.id, { intervalSeconds: 60, active: true, nextRunAt: at(0) });
    await saveSchedule(db, off.id, { intervalSeconds: 60, active: false, nextRunAt: null });
    await saveSchedule(db, paused.id, { intervalSeconds: 60, active: true, nextRunAt: at(0) });
    await db.bot.update({ where: { id: paused.id }, data: { status: 'paused' } });
    const ids = (await listRunnableSchedules(db)).map((s) => s.botId);
    expect(ids).toContain(running.id);
    for (const bot of [off, paused, none]) expect(ids).not.toContain(bot.id);
    expect((await listRunnableSchedules(db)).find((s) => s.botId === running.id)).toEqual({
      botId: running.id,
      intervalSeconds: 60,
      cron: null,
      timezone: 'UTC',
      nextRunAt: at(0),
    });
  });
});

describe('recordScheduledRun', () => {
  it('moves lastRunAt forward only and sets nextRunAt', async () => {
    const bot = await newBot();
    await saveSchedule(db, bot.id, { intervalSeconds: 60, active: true, nextRunAt: at(0) });
    expect(
      await recordScheduledRun(db, {
        botId: bot.id,
        slot: at(60_000),
        nextRunAt: at(120_000),
        timing: { intervalSeconds: 60, cron: null, timezone: 'UTC' },
      }),
    ).toBe(true);
    // A late or repeated tick for an older (or the same) slot changes nothing.
    expect(
      await recordScheduledRun(db, {
        botId: bot.id,
        slot: at(0),
        nextRunAt: at(60_000),
        timing: { intervalSeconds: 60, cron: null, timezone: 'UTC' },
      }),
    ).toBe(false);
    expect(
      await recordScheduledRun(db, {
        botId: bot.id,
        slot: at(60_000),
        nextRunAt: at(120_000),
        timing: { intervalSeconds: 60, cron: null, timezone: 'UTC' },
      }),
    ).toBe(false);
    expect(await findSchedule(db, bot.id)).toMatchObject({ lastRunAt: at(60_000), nextRunAt: at(120_000) });
  });

  it('does not revive nextRunAt of a schedule deactivated, re-timed or paused meanwhile', async () => {
    const bot = await newBot();
    await saveSchedule(db, bot.id, { intervalSeconds: 60, active: false, nextRunAt: null });
    await recordScheduledRun(db, {
      botId: bot.id,
      slot: at(0),
      nextRunAt: at(60_000),
      timing: { intervalSeconds: 60, cron: null, timezone: 'UTC' },
    });
    expect(await findSchedule(db, bot.id)).toMatchObject({ lastRunAt: at(0), nextRunAt: null });

    await saveSchedule(db, bot.id, { intervalSeconds: 300, active: true, nextRunAt: at(400_000) });
    await recordScheduledRun(db, {
      botId: bot.id,
      slot: at(60_000),
      nextRunAt: at(120_000),
      timing: { intervalSeconds: 60, cron: null, timezone: 'UTC' },
    });
    expect(await findSchedule(db, bot.id)).toMatchObject({ lastRunAt: at(60_000), nextRunAt: at(400_000) });

    await db.bot.update({ where: { id: bot.id }, data: { status: 'paused' } });
    await setScheduleNextRun(db, bot.id, null);
    await recordScheduledRun(db, {
      botId: bot.id,
      slot: at(400_000),
      nextRunAt: at(700_000),
      timing: { intervalSeconds: 300, cron: null, timezone: 'UTC' },
    });
    expect(await findSchedule(db, bot.id)).toMatchObject({ lastRunAt: at(400_000), nextRunAt: null });
  });
});

describe('setScheduleNextRun', () => {
  it('with onlyIfActive leaves an inactive schedule alone', async () => {
    const bot = await newBot();
    await saveSchedule(db, bot.id, { intervalSeconds: 60, active: false, nextRunAt: null });
    expect(await setScheduleNextRun(db, bot.id, at(0), { onlyIfActive: true })).toBe(false);
    expect(await setScheduleNextRun(db, bot.id, null)).toBe(true);
    expect(await setScheduleNextRun(db, 'bot_missing', null)).toBe(false);
  });
});

describe('scheduled executions', () => {
  it('refuses a second execution for the same slot and finds the first', async () => {
    const bot = await newBot();
    const first = await createExecution(db, {
      botId: bot.id,
      organizationId,
      trigger: 'schedule',
      params: {},
      scheduledFor: at(0),
    });
    const refused = await createExecution(db, {
      botId: bot.id,
      organizationId,
      trigger: 'schedule',
      params: {},
      scheduledFor: at(0),
    }).catch((err: unknown) => err);
    expect(isUniqueViolation(refused)).toBe(true);
    expect((await findScheduledExecution(db, bot.id, at(0)))?.id).toBe(first.id);
    expect(await findBotWithSchedule(db, bot.id)).toEqual({
      id: bot.id,
      organizationId,
      status: 'active',
      schedule: null,
    });
  });

  it('counts the executions per slot, unscheduled runs together', async () => {
    const bot = await newBot();
    expect(await countExecutionsPerSlot(db, bot.id)).toEqual([]);
    for (const scheduledFor of [at(0), at(60_000), undefined, undefined]) {
      await createExecution(db, {
        botId: bot.id,
        organizationId,
        trigger: scheduledFor ? 'schedule' : 'api',
        params: {},
        scheduledFor,
      });
    }
    const counts = await countExecutionsPerSlot(db, bot.id);
    expect(counts).toHaveLength(3);
    expect(counts).toEqual(
      expect.arrayContaining([
        { scheduledFor: at(0), count: 1 },
        { scheduledFor: at(60_000), count: 1 },
        { scheduledFor: null, count: 2 },
      ]),
    );
  });
});
