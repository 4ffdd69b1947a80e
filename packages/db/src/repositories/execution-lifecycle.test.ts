import type { RunOutcome } from '@botfleet/core';
import type { PrismaClient } from '../client';
import {
  createCompletedExecutionWithDelivery,
  createTestBot,
  createTestExecution,
  useTestOrganization,
} from '../testing';
import { listDeliveriesForExecution } from './deliveries';
import {
  cancelExecution,
  claimExecution,
  endExecutionAttempt,
  requeueExecution,
  type ProgressBatch,
} from './execution-lifecycle';
import { listExecutionLogs, listStepOutputs } from './execution-results';
import { findExecution } from './executions';

let db: PrismaClient;
let organizationId: string;

useTestOrganization(
  (client, id) => {
    db = client;
    organizationId = id;
  },
  { poolSize: 4 },
);

async function botWithWebhook(): Promise<string> {
  const webhook = { url: 'https://hooks.example/in', auth: 'none' as const };
  const bot = await createTestBot(db, organizationId, { manifest: { webhook } });
  return bot.id;
}

async function claimedRun(botId: string) {
  const execution = await createTestExecution(db, { botId, organizationId });
  const claimed = await claimExecution(db, execution.id);
  return { executionId: execution.id, botId, attempt: claimed!.attempt };
}

const progress = (): ProgressBatch => ({
  steps: [
    { index: 0, action: 'goto', status: 'completed', data: null, error: null, startedAt: Date.now(), durationMs: 5 },
  ],
  logs: [{ timestamp: Date.now(), level: 'info', source: 'runner', message: 'done' }],
  artifacts: [],
});

type Run = Awaited<ReturnType<typeof claimedRun>>;
const end = (run: Run, outcome: RunOutcome) => endExecutionAttempt(db, { ...run, outcome, progress: progress() });

describe('endExecutionAttempt', () => {
  it('completes the execution with its output and its delivery, in one go', async () => {
    const run = await claimedRun(await botWithWebhook());
    const ended = await end(run, { status: 'completed', data: { title: 'x' } });
    expect(ended).toEqual({ finished: true, deliveryIds: [expect.stringMatching(/^dlv_/)] });
    expect(await findExecution(db, organizationId, run.executionId)).toMatchObject({
      status: 'completed',
      extractedData: { title: 'x' },
    });
    expect(await listStepOutputs(db, run.executionId)).toHaveLength(1);
    expect((await listDeliveriesForExecution(db, run.executionId)).map((d) => d.id)).toEqual(ended.deliveryIds);
  });

  it('creates no delivery for a completion without data, nor for a failure', async () => {
    const bot = await botWithWebhook();
    const empty = await claimedRun(bot);
    expect(await end(empty, { status: 'completed', data: null })).toEqual({ finished: true, deliveryIds: [] });
    const failed = await claimedRun(bot);
    expect(await end(failed, { status: 'failed', error: 'boom', stepIndex: 0 })).toEqual({
      finished: true,
      deliveryIds: [],
    });
    expect(await findExecution(db, organizationId, failed.executionId)).toMatchObject({
      status: 'failed',
      error: 'boom',
      failedStepIndex: 0,
    });
  });

  it('keeps a cancelled attempt’s output but writes nothing for a superseded one', async () => {
    const bot = await botWithWebhook();
    const cancelled = await claimedRun(bot);
    expect(await cancelExecution(db, organizationId, cancelled.executionId)).toMatchObject({
      id: cancelled.executionId,
      status: 'cancelled',
    });
    expect(await end(cancelled, { status: 'completed', data: { a: 1 } })).toEqual({
      finished: false,
      deliveryIds: [],
    });
    expect(await findExecution(db, organizationId, cancelled.executionId)).toMatchObject({
      status: 'cancelled',
      extractedData: null,
    });
    expect(await listExecutionLogs(db, cancelled.executionId)).toHaveLength(1);

    const superseded = await claimedRun(bot);
    await claimExecution(db, superseded.executionId);
    expect(await end(superseded, { status: 'completed', data: { a: 1 } })).toEqual({
      finished: false,
      deliveryIds: [],
    });
    expect(await findExecution(db, organizationId, superseded.executionId)).toMatchObject({
      status: 'running',
      attempt: superseded.attempt + 1,
    });
    expect(await listStepOutputs(db, superseded.executionId)).toEqual([]);
    expect(await listDeliveriesForExecution(db, superseded.executionId)).toEqual([]);
  });
});

describe('claimExecution', () => {
  it('counts an infrastructure retry only when the previous attempt never finished', async () => {
    const bot = await createTestBot(db, organizationId);
    const execution = await createTestExecution(db, { botId: bot.id, organizationId });
    expect(await claimExecution(db, execution.id)).toMatchObject({ attempt: 1, infraRetries: 0 });
    // Claimed again while still running: its worker died (or lost its lock).
    expect(await claimExecution(db, execution.id)).toMatchObject({ attempt: 2, infraRetries: 1 });
    // An orderly hand-over (a bot retry, a shutdown hand-back) goes through pending: not counted.
    expect(await requeueExecution(db, execution.id, 1)).toBeNull(); // attempt 1 no longer owns it
    expect(await requeueExecution(db, execution.id, 2)).toMatchObject({ botId: execution.botId });
    expect(await claimExecution(db, execution.id)).toMatchObject({ attempt: 3, infraRetries: 1 });
    expect(await claimExecution(db, execution.id)).toMatchObject({ attempt: 4, infraRetries: 2 });
    expect(await findExecution(db, organizationId, execution.id)).toMatchObject({ attempt: 4, infraRetries: 2 });
  });
});

describe('cancelExecution', () => {
  it('returns the cancelled row once, then null', async () => {
    const run = await claimedRun(await botWithWebhook());
    expect(await cancelExecution(db, organizationId, run.executionId)).toMatchObject({
      id: run.executionId,
      status: 'cancelled',
      completedAt: expect.any(Date),
    });
    expect(await cancelExecution(db, organizationId, run.executionId)).toBeNull();
  });
});

describe('createCompletedExecutionWithDelivery', () => {
  it('writes a completed execution and its delivery together', async () => {
    const botId = await botWithWebhook();
    const { executionId, deliveryId } = await createCompletedExecutionWithDelivery(db, {
      botId,
      organizationId,
      extractedData: { items: [1] },
    });
    expect(await findExecution(db, organizationId, executionId)).toMatchObject({
      status: 'completed',
      extractedData: { items: [1] },
    });
    expect((await listDeliveriesForExecution(db, executionId)).map((d) => d.id)).toEqual([deliveryId]);
  });
});
