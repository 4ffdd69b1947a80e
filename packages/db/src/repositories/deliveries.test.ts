import type { PrismaClient } from '../client';
import {
  createDeliveryForCompletedExecution,
  createTestBot,
  createTestExecution,
  useTestOrganization,
} from '../testing';
import {
  claimDeliveryAttempt,
  findDeliveryForAttempt,
  findOverdueDeliveries,
  listDeliveriesForExecution,
  recordDeliveryAttempt,
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

  it('loads the delivery with the manifest’s login details and sealed secrets', async () => {
    const { id, run } = await newDelivery();
    expect(await findDeliveryForAttempt(db, id)).toMatchObject({
      id,
      executionId: run.executionId,
      botId: run.botId,
      status: 'pending',
      auth: 'jwt',
      attemptCount: 0,
      loginUrl: 'https://login.example',
      username: 'u',
      webhookPasswordEnc: 'v1.pw',
      webhookSecretEnc: null,
    });
    expect(await findDeliveryForAttempt(db, 'dlv_missing')).toBeNull();
  });

  it('lets exactly one of two racing claims take an attempt', async () => {
    const { id } = await newDelivery();
    const row = (await findDeliveryForAttempt(db, id))!;
    const claim = {
      deliveryId: id,
      attemptCount: 0,
      nextAttemptAt: row.nextAttemptAt,
      leaseUntil: new Date(Date.now() + 60_000),
    };
    const results = await Promise.all([claimDeliveryAttempt(db, claim), claimDeliveryAttempt(db, claim)]);
    expect(results.sort()).toEqual([false, true]);
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
