import type { PrismaClient } from '../client';
import {
  createDeliveryForCompletedExecution,
  createTestBot,
  createTestExecution,
  useTestOrganization,
} from '../testing';
import {
  claimDueDeliveries,
  findOverdueDeliveries,
  listDeliveriesForExecution,
  recordDeliveryAttempt,
  recordDeliveryAttempts,
  releaseDeliveryClaim,
} from './deliveries';
import type { StoredManifest } from './manifests';

let db: PrismaClient;
let organizationId: string;

useTestOrganization(
  (client, id) => {
    db = client;
    organizationId = id;
  },
  { poolSize: 4 },
);

async function completedRun(
  manifest: Partial<StoredManifest>,
  extractedData: unknown = { items: [{ name: 'a' }, { name: 'b' }] },
) {
  const bot = await createTestBot(db, organizationId, { manifest });
  const execution = await createTestExecution(db, { botId: bot.id, organizationId, completed: { extractedData } });
  return { botId: bot.id, executionId: execution.id, extractedData };
}

const hmacHook = {
  webhook: { url: 'https://hooks.example/in', auth: 'hmac' as const, dataPath: 'items.1' },
  webhookSecretEnc: 'v1.sealed',
};

describe('createDeliveryForCompletedExecution', () => {
  it('snapshots url and auth and stores the narrowed body, due now', async () => {
    const run = await completedRun(hmacHook);
    const before = Date.now();
    const created = await db.$transaction((tx) => createDeliveryForCompletedExecution(tx, run));
    expect(created?.id).toMatch(/^dlv_/);
    const row = await db.webhookDelivery.findUniqueOrThrow({ where: { id: created!.id } });
    expect(row).toMatchObject({
      status: 'pending',
      url: 'https://hooks.example/in',
      auth: 'hmac',
      body: '{"name":"b"}',
      attemptCount: 0,
    });
    expect(row.nextAttemptAt!.getTime()).toBeGreaterThanOrEqual(before - 5);
    expect(JSON.stringify(row)).not.toContain('sealed');
  });

  it('delivers null when the dataPath does not resolve', async () => {
    const run = await completedRun({ webhook: { url: 'https://hooks.example/in', auth: 'none', dataPath: 'nope.0' } });
    const created = await createDeliveryForCompletedExecution(db, run);
    expect((await db.webhookDelivery.findUniqueOrThrow({ where: { id: created!.id } })).body).toBe('null');
  });

  it('creates nothing without a webhook or without data', async () => {
    const noHook = await completedRun({});
    expect(await createDeliveryForCompletedExecution(db, noHook)).toBeNull();
    const noData = await completedRun(hmacHook);
    expect(await createDeliveryForCompletedExecution(db, { ...noData, extractedData: null })).toBeNull();
    expect(
      await db.webhookDelivery.count({ where: { executionId: { in: [noHook.executionId, noData.executionId] } } }),
    ).toBe(0);
  });
});

describe('attempts', () => {
  async function newDelivery() {
    const run = await completedRun({
      webhook: { url: 'https://hooks.example/in', auth: 'jwt', loginUrl: 'https://login.example', username: 'u' },
      webhookPasswordEnc: 'v1.pw',
    });
    const { id } = (await createDeliveryForCompletedExecution(db, run))!;
    return { id, run };
  }
  const attempt = (
    deliveryId: string,
    number: number,
    outcome: Parameters<typeof recordDeliveryAttempt>[1]['outcome'],
  ) =>
    recordDeliveryAttempt(db, {
      deliveryId,
      number,
      startedAt: new Date(),
      durationMs: 12.4,
      statusCode: 500,
      error: 'receiver answered HTTP 500',
      outcome,
    });

  const claim = (deliveryIds: string[], leaseMs = 60_000) =>
    claimDueDeliveries(db, { deliveryIds, dueBy: new Date(), leaseUntil: new Date(Date.now() + leaseMs) });

  it('claims and loads in one statement: the manifest’s login details and sealed secrets, the due time it replaced', async () => {
    const { id, run } = await newDelivery();
    const due = (await db.webhookDelivery.findUniqueOrThrow({ where: { id } })).nextAttemptAt;
    const [claimed] = await claim([id, 'dlv_missing']);
    expect(claimed).toMatchObject({
      id,
      organizationId,
      executionId: run.executionId,
      botId: run.botId,
      auth: 'jwt',
      attemptCount: 0,
      seriesFirstAttempt: 1,
      dueAt: due,
      loginUrl: 'https://login.example',
      username: 'u',
      webhookPasswordEnc: 'v1.pw',
      webhookSecretEnc: null,
      webhookDisabledAt: null,
    });
    const row = await db.webhookDelivery.findUniqueOrThrow({ where: { id } });
    expect(row.nextAttemptAt).toEqual(claimed!.leaseUntil);
    // Leased: not due any more, so a second claim takes nothing.
    expect(await claim([id])).toEqual([]);
  });

  it('never hands one attempt to two claims racing over the same batch', async () => {
    const ids = await Promise.all(Array.from({ length: 20 }, async () => (await newDelivery()).id));
    const results = await Promise.all([claim(ids), claim([...ids].reverse()), claim(ids)]);
    const taken = results.flatMap((batch) => batch.map((d) => d.id));
    expect(taken.sort()).toEqual([...ids].sort());
  });

  it('gives a released claim back due as before, and only while the lease is still the claimant’s', async () => {
    const { id } = await newDelivery();
    const [claimed] = await claim([id]);
    expect(await releaseDeliveryClaim(db, claimed!)).toBe(true);
    const row = await db.webhookDelivery.findUniqueOrThrow({ where: { id } });
    expect(row.nextAttemptAt).toEqual(claimed!.dueAt);
    expect(await releaseDeliveryClaim(db, claimed!)).toBe(false);
    expect(await claim([id])).toHaveLength(1);
  });

  it('records a batch of attempts in one statement, each only as the next number of a pending delivery', async () => {
    const [a, b, c] = await Promise.all([newDelivery(), newDelivery(), newDelivery()]);
    const record = (deliveryId: string, number: number, status: 'succeeded' | 'failed') => ({
      deliveryId,
      number,
      startedAt: new Date(),
      durationMs: 3,
      statusCode: status === 'succeeded' ? 200 : null,
      error: status === 'succeeded' ? null : 'timeout',
      outcome: { status },
    });
    const written = await recordDeliveryAttempts(db, [
      record(a!.id, 1, 'succeeded'),
      record(b!.id, 2, 'succeeded'), // not the next number: refused
      record(c!.id, 1, 'failed'),
    ]);
    expect([...written].sort()).toEqual([a!.id, c!.id].sort());
    const rows = await db.webhookDelivery.findMany({
      where: { id: { in: [a!.id, b!.id, c!.id] } },
      include: { attempts: true },
    });
    const byId = new Map(rows.map((row) => [row.id, row]));
    expect(byId.get(a!.id)).toMatchObject({ status: 'succeeded', attemptCount: 1, nextAttemptAt: null });
    expect(byId.get(b!.id)).toMatchObject({ status: 'pending', attemptCount: 0, attempts: [] });
    expect(byId.get(c!.id)).toMatchObject({ status: 'failed', attemptCount: 1, lastError: 'timeout' });
    expect(byId.get(c!.id)!.attempts.map((x) => [x.number, x.statusCode, x.error])).toEqual([[1, null, 'timeout']]);
    expect(await recordDeliveryAttempts(db, [record(a!.id, 1, 'succeeded')])).toEqual(new Set());
  });

  it('records each attempt number once, retries, then fails for good', async () => {
    const { id, run } = await newDelivery();
    const retryAt = new Date(Date.now() + 5_000);
    const first = await Promise.all([
      attempt(id, 1, { status: 'pending', nextAttemptAt: retryAt }),
      attempt(id, 1, { status: 'pending', nextAttemptAt: retryAt }),
    ]);
    expect(first.sort()).toEqual([false, true]);
    expect(await attempt(id, 3, { status: 'failed' })).toBe(false); // skipping a number is refused too
    expect(await attempt(id, 2, { status: 'failed' })).toBe(true);
    expect(await attempt(id, 3, { status: 'pending', nextAttemptAt: retryAt })).toBe(false); // final stays final

    const [delivery] = await listDeliveriesForExecution(db, run.executionId);
    expect(delivery).toMatchObject({
      id,
      status: 'failed',
      attemptCount: 2,
      nextAttemptAt: null,
      lastError: 'receiver answered HTTP 500',
    });
    expect(delivery!.completedAt).toBeInstanceOf(Date);
    expect(delivery!.attempts.map((a) => [a.number, a.statusCode, a.durationMs])).toEqual([
      [1, 500, 12],
      [2, 500, 12],
    ]);
  });

  it('finds pending deliveries that are overdue, not final or future ones', async () => {
    const overdue = await newDelivery();
    const future = await newDelivery();
    await db.webhookDelivery.update({
      where: { id: overdue.id },
      data: { nextAttemptAt: new Date(Date.now() - 60_000) },
    });
    await db.webhookDelivery.update({
      where: { id: future.id },
      data: { nextAttemptAt: new Date(Date.now() + 60_000) },
    });
    const done = await newDelivery();
    await db.webhookDelivery.update({ where: { id: done.id }, data: { nextAttemptAt: new Date(Date.now() - 60_000) } });
    await attempt(done.id, 1, { status: 'succeeded' });

    const found = (await findOverdueDeliveries(db, { dueBefore: new Date(Date.now() - 1_000), limit: 1000 })).map(
      (d) => d.id,
    );
    expect(found).toContain(overdue.id);
    expect(found).not.toContain(future.id);
    expect(found).not.toContain(done.id);
  });
});
