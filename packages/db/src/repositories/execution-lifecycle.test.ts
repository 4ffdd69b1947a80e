import type { RunOutcome } from '@botfleet/core';
import type { PrismaClient } from '../client';
import {
  artifactInRow,
  createCompletedExecutionWithDelivery,
  createTestBot,
  createTestExecution,
  useTestOrganization,
} from '../testing';
import { listDeliveriesForExecution } from './deliveries';
import {
  cancelExecution,
  claimExecution,
  claimExecutionWithinCap,
  endExecutionAttempt,
  requeueExecution,
  writeProgress,
} from './execution-lifecycle';
import { listArtifacts, listExecutionLogs, listStepOutputs } from './execution-results';
import { findExecution } from './executions';
import type { ProgressBatch } from './progress-batch';

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

/** A flush of `attempt`: a step output, a log line and a screenshot kept in its row. */
const flushOf = (attempt: number): ProgressBatch => ({
  steps: [
    { index: 0, action: 'goto', status: 'completed', data: null, error: null, startedAt: Date.now(), durationMs: 5 },
  ],
  logs: [{ timestamp: Date.now(), level: 'info', source: 'runner', message: `flush of attempt ${attempt}`, attempt }],
  artifacts: [artifactInRow('stepScreenshot', 'image/png', Buffer.from(`png of attempt ${attempt}`))],
});

describe('writeProgress', () => {
  it('writes nothing for an attempt a newer one took over, and says so', async () => {
    const run = await claimedRun(await botWithWebhook());
    expect(await writeProgress(db, run, flushOf(1))).toEqual({ owned: true, cancelled: false });
    expect(await claimExecution(db, run.executionId)).toMatchObject({ attempt: 2 });

    expect(await writeProgress(db, run, flushOf(1))).toEqual({ owned: false });
    // With nothing to write it still tells: a run waiting on a long step learns it too.
    expect(await writeProgress(db, run, { steps: [], logs: [], artifacts: [] })).toEqual({ owned: false });
    expect(await listStepOutputs(db, run.executionId)).toEqual([]);
    expect(await listArtifacts(db, run.executionId)).toEqual([]);
    // The first flush's line, from before the claim, is kept (logs are); the refused one is not.
    expect((await listExecutionLogs(db, run.executionId)).map((l) => l.message)).toEqual(['flush of attempt 1']);

    expect(await writeProgress(db, { ...run, attempt: 2 }, flushOf(2))).toEqual({ owned: true, cancelled: false });
    expect(await listStepOutputs(db, run.executionId)).toHaveLength(1);
    expect(await listArtifacts(db, run.executionId)).toHaveLength(1);
  });

  it('keeps what a cancelled attempt writes, and tells it the run was cancelled', async () => {
    const run = await claimedRun(await botWithWebhook());
    await cancelExecution(db, organizationId, run.executionId);
    expect(await writeProgress(db, run, flushOf(1))).toEqual({ owned: true, cancelled: true });
    expect(await listStepOutputs(db, run.executionId)).toHaveLength(1);
    expect(await writeProgress(db, { ...run, attempt: 2 }, flushOf(2))).toEqual({ owned: false });
  });

  it('never leaves an older attempt’s rows behind a claim that raced its flush', async () => {
    const bot = await createTestBot(db, organizationId);
    const rounds = 40;
    for (let round = 0; round < rounds; round++) {
      const run = await claimedRun(bot.id);
      // Both claim paths: one statement with no cap, a transaction under the organization's lock with one.
      const claim = () =>
        round % 2 === 0
          ? claimExecution(db, run.executionId)
          : claimExecutionWithinCap(db, run.executionId, (own) => own ?? 1_000);
      const [write, claimed] = await Promise.all([writeProgress(db, run, flushOf(1)), claim()]);
      expect(claimed).toMatchObject({ attempt: 2 });
      // Written first, the claim cleared the rows; refused, nothing of the flush was written.
      expect(await listStepOutputs(db, run.executionId)).toEqual([]);
      expect(await listArtifacts(db, run.executionId)).toEqual([]);
      expect(await listExecutionLogs(db, run.executionId)).toHaveLength(write.owned ? 1 : 0);
    }
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
