import type { Step } from '@botfleet/core';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { PrismaClient } from '../client';
import { findMigrationsDir } from '../migrations-dir';
import { createTestBot, useTestOrganization } from '../testing';
import { loadBotDefinition, recordBotVersion } from './bot-definition';
import {
  findBotVersion,
  findBotVersionForRun,
  listBotVersions,
  restoreBotVersion,
  summarizeBotVersion,
} from './bot-versions';
import { findBot } from './bots';
import { createExecution, createExecutions } from './executions';
import { loadManifest, modifyManifest, type StoredManifest } from './manifests';
import { createProfile } from './profiles';
import { createHandwrittenScript, deleteScript, listScripts, updateScript } from './scripts';
import { createBotWithSteps, loadSteps, replaceStepsAndScript } from './steps';

let db: PrismaClient;
let organizationId: string;
useTestOrganization(
  (client, id) => {
    db = client;
    organizationId = id;
  },
  { poolSize: 4 },
);

const steps = (...urls: string[]): Step[] => urls.map((url, index) => ({ index, action: 'goto', url }) as Step);
const botInput = { name: 'versioned', targetUrl: 'https://a.example', kind: 'extraction' as const, tags: [] };
const MODULE = 'export default async () => ({})';

const versionOf = async (botId: string) => (await findBot(db, organizationId, botId))!.version;
const changesOf = async (botId: string, version: number) => (await findBotVersion(db, botId, version))!.changes;

/** A manifest PUT as the API makes it: a locked read-modify-write. */
const putManifest = (botId: string, patch: Partial<StoredManifest>) =>
  modifyManifest(db, botId, (current) => ({ ...current, ...patch }));

describe('recordBotVersion through every write path', () => {
  it('a bot made from a recording is version 1 with its steps and generated script', async () => {
    const bot = await createBotWithSteps(db, organizationId, botInput, steps('https://a.example/1'), 'generated 1');
    expect(bot.version).toBe(1);
    const v1 = (await findBotVersion(db, bot.id, 1))!;
    expect(v1).toMatchObject({ version: 1, changes: [], restoredFrom: null });
    expect(v1.steps).toEqual(steps('https://a.example/1'));
    expect(v1.scripts).toEqual([expect.objectContaining({ origin: 'generated', source: 'generated 1', active: true })]);
    expect(await findBotVersion(db, bot.id, 2)).toBeNull();
  });

  it('steps, each script write and each manifest section make one version each; a no-op write makes none', async () => {
    const bot = await createTestBot(db, organizationId);
    expect(await versionOf(bot.id)).toBe(1);

    await replaceStepsAndScript(db, bot.id, steps('https://a.example/'), 'generated');
    expect(await versionOf(bot.id)).toBe(2);
    expect(await changesOf(bot.id, 2)).toEqual(['steps', 'scripts']);
    // The same steps again: nothing differs, so no version.
    await replaceStepsAndScript(db, bot.id, steps('https://a.example/'), 'generated');
    expect(await versionOf(bot.id)).toBe(2);

    const script = await createHandwrittenScript(db, bot.id, { name: 'hand', source: MODULE });
    expect(await versionOf(bot.id)).toBe(3);
    expect(await changesOf(bot.id, 3)).toEqual(['scripts']);
    await updateScript(db, bot.id, script.id, { active: true });
    expect(await versionOf(bot.id)).toBe(4);
    await updateScript(db, bot.id, script.id, { active: true });
    await updateScript(db, bot.id, script.id, { source: MODULE });
    expect(await versionOf(bot.id)).toBe(4);
    await updateScript(db, bot.id, script.id, { source: `${MODULE}\n` });
    expect(await versionOf(bot.id)).toBe(5);
    await deleteScript(db, bot.id, script.id);
    expect(await versionOf(bot.id)).toBe(6);

    await putManifest(bot.id, { capabilities: { timeout: 30 } });
    expect(await versionOf(bot.id)).toBe(7);
    expect(await changesOf(bot.id, 7)).toEqual(['manifest']);
    await putManifest(bot.id, { capabilities: { timeout: 30 } });
    expect(await versionOf(bot.id)).toBe(7);
    await putManifest(bot.id, { webhook: { url: 'https://hooks.example/in', auth: 'hmac' }, webhookSecretEnc: 's1' });
    // A rotated secret is a change of the webhook section, though only its sealed value differs.
    await putManifest(bot.id, { webhookSecretEnc: 's2' });
    expect(await versionOf(bot.id)).toBe(9);
    const profile = await createProfile(db, organizationId, { name: `versions-${bot.id}` });
    await putManifest(bot.id, { session: { profileId: profile.id, persist: 'always' } });
    expect(await versionOf(bot.id)).toBe(10);

    const page = await listBotVersions(db, bot.id, { limit: 4 });
    expect(page.items.map((v) => v.version)).toEqual([10, 9, 8, 7]);
    expect(page.items.map((v) => v.manifestSections)).toEqual([
      ['session'],
      ['webhook'],
      ['webhook'],
      ['capabilities'],
    ]);
    const next = await listBotVersions(db, bot.id, { limit: 10, before: Number(page.nextCursor) });
    expect(next.items.map((v) => v.version)).toEqual([6, 5, 4, 3, 2, 1]);
    expect(next.nextCursor).toBeNull();
    expect(next.items.at(-2)).toMatchObject({ steps: { before: 0, after: 1 }, scripts: { before: 0, after: 1 } });
    expect(next.items.at(-1)).toMatchObject({ steps: { before: null, after: 0 }, manifestSections: [] });
    expect(await summarizeBotVersion(db, bot.id, 3)).toMatchObject({ scripts: { before: 1, after: 2 } });
  });

  it('what the system writes into the manifest itself (webhook health) is no version', async () => {
    const bot = await createTestBot(db, organizationId, {
      manifest: { webhook: { url: 'https://hooks.example/in', auth: 'none' } },
    });
    await putManifest(bot.id, {
      webhookDisabledAt: new Date(),
      webhookDisabledReason: 'gone',
      webhookFailingSince: new Date(),
    });
    expect(await versionOf(bot.id)).toBe(1);
    // Version 1 of a fixture is the bot as created, its manifest included.
    expect((await findBotVersion(db, bot.id, 1))!.manifest.webhook).toEqual({
      url: 'https://hooks.example/in',
      auth: 'none',
    });
  });

  it('concurrent writes number their versions one after the other, each seeing the others', async () => {
    const bot = await createTestBot(db, organizationId);
    await Promise.all([
      replaceStepsAndScript(db, bot.id, steps('https://a.example/'), 'generated'),
      createHandwrittenScript(db, bot.id, { name: 'one', source: MODULE }),
      putManifest(bot.id, { capabilities: { timeout: 12 } }),
    ]);
    expect(await versionOf(bot.id)).toBe(4);
    const latest = (await findBotVersion(db, bot.id, 4))!;
    expect(latest.definition).toEqual(await loadBotDefinition(db, bot.id));
    expect(latest.steps).toHaveLength(1);
    expect(latest.scripts).toHaveLength(2);
  });

  it('a run records the bot’s version when it is triggered, single or batch, and runs that version', async () => {
    const bot = await createBotWithSteps(db, organizationId, botInput, steps('https://a.example/old'), 'generated');
    const early = await createExecution(db, { botId: bot.id, organizationId, trigger: 'api', params: {} });
    await replaceStepsAndScript(db, bot.id, steps('https://a.example/new'), 'generated 2');
    const late = await createExecution(db, {
      botId: bot.id,
      organizationId,
      trigger: 'rerun',
      params: {},
      rerunOf: early.id,
    });
    const [batched] = (await createExecutions(db, { botId: bot.id, botVersion: 2, organizationId, params: [{}] }))!;
    expect(early.botVersion).toBe(1);
    expect(late.botVersion).toBe(2);
    expect((await db.execution.findUniqueOrThrow({ where: { id: batched! } })).botVersion).toBe(2);
    const forRun = (await findBotVersionForRun(db, bot.id, early.botVersion))!;
    expect(forRun.version.steps).toEqual(steps('https://a.example/old'));
    expect(forRun.bot.id).toBe(bot.id);
    await expect(findBotVersionForRun(db, bot.id, 99)).rejects.toThrow('has no version 99');
    expect(await recordBotVersion(db, 'bot_00000000000000000000000000')).toBeNull();
  });
});

describe('restoreBotVersion', () => {
  it('brings back the exact steps, scripts and manifest (sealed secrets included) as a new version', async () => {
    const bot = await createBotWithSteps(db, organizationId, botInput, steps('https://a.example/1'), 'generated 1');
    const hand = await createHandwrittenScript(db, bot.id, { name: 'hand', source: MODULE, active: true });
    await putManifest(bot.id, {
      capabilities: { timeout: 20 },
      webhook: { url: 'https://hooks.example/in', auth: 'hmac' },
      webhookSecretEnc: 'sealed-secret-v1',
      parameters: [{ name: 'sku', type: 'string', required: true }],
    });
    const kept = (await findBotVersion(db, bot.id, await versionOf(bot.id)))!;

    await replaceStepsAndScript(db, bot.id, steps('https://a.example/2', 'https://a.example/3'), 'generated 2');
    await deleteScript(db, bot.id, hand.id);
    await putManifest(bot.id, { webhook: null, webhookSecretEnc: null, capabilities: {}, parameters: [] });
    const before = await versionOf(bot.id);

    const restored = await restoreBotVersion(db, kept, async () => undefined);
    expect(restored).toEqual({ version: before + 1, created: true });
    const now = (await findBotVersion(db, bot.id, before + 1))!;
    expect(now).toMatchObject({ restoredFrom: kept.version, changes: ['steps', 'scripts', 'manifest'] });
    expect(now.definition).toEqual(kept.definition);
    expect(await loadSteps(db, bot.id)).toEqual(kept.steps);
    expect((await listScripts(db, bot.id)).map((s) => [s.id, s.source, s.active])).toEqual(
      kept.scripts.map((s) => [s.id, s.source, s.active]),
    );
    expect(await loadManifest(db, bot.id)).toMatchObject({
      webhookSecretEnc: 'sealed-secret-v1',
      capabilities: { timeout: 20 },
    });

    // Restoring what is already current makes nothing.
    expect(await restoreBotVersion(db, kept, async () => undefined)).toEqual({ version: before + 1, created: false });
  });

  it('keeps a disabled webhook disabled when it restores the same webhook, and enables a different one', async () => {
    const bot = await createTestBot(db, organizationId, {
      manifest: { webhook: { url: 'https://hooks.example/a', auth: 'none' } },
    });
    const v1 = (await findBotVersion(db, bot.id, 1))!;
    await putManifest(bot.id, { capabilities: { timeout: 9 } });
    await putManifest(bot.id, { webhookDisabledAt: new Date(), webhookDisabledReason: '410 Gone' });
    await restoreBotVersion(db, v1, async () => undefined);
    expect((await loadManifest(db, bot.id)).webhookDisabledReason).toBe('410 Gone');

    await putManifest(bot.id, { webhook: { url: 'https://hooks.example/b', auth: 'none' } });
    await putManifest(bot.id, { webhookDisabledAt: new Date(), webhookDisabledReason: '410 Gone' });
    await restoreBotVersion(db, v1, async () => undefined);
    expect(await loadManifest(db, bot.id)).toMatchObject({ webhookDisabledAt: null, webhookDisabledReason: null });
  });

  it('writes nothing when the check refuses', async () => {
    const bot = await createBotWithSteps(db, organizationId, botInput, steps('https://a.example/1'), 'generated 1');
    const v1 = (await findBotVersion(db, bot.id, 1))!;
    await replaceStepsAndScript(db, bot.id, steps('https://a.example/2'), 'generated 2');
    await expect(
      restoreBotVersion(db, v1, async () => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await versionOf(bot.id)).toBe(2);
    expect(await loadSteps(db, bot.id)).toEqual(steps('https://a.example/2'));
  });
});

describe('the backfill migration', () => {
  it('writes version 1 of a bot without versions in exactly the shape recordBotVersion snapshots', async () => {
    const profile = await createProfile(db, organizationId, { name: 'backfill profile' });
    const bot = await createBotWithSteps(
      db,
      organizationId,
      botInput,
      steps('https://a.example/1', 'https://a.example/2'),
      'generated',
    );
    await createHandwrittenScript(db, bot.id, { name: 'hand', source: MODULE, active: true });
    await createHandwrittenScript(db, bot.id, { name: 'spare', source: MODULE });
    await putManifest(bot.id, {
      capabilities: { timeout: 20, adBlocking: true, locale: 'en-US' },
      webhook: { url: 'https://hooks.example/in', auth: 'jwt', loginUrl: 'https://hooks.example/login', username: 'u' },
      webhookPasswordEnc: 'sealed-password',
      parameters: [{ name: 'sku', type: 'string', required: true }],
      session: { profileId: profile.id, persist: 'never' },
      webhookDisabledAt: new Date(),
    });
    const recorded = (await findBotVersion(db, bot.id, await versionOf(bot.id)))!;
    const bare = await createTestBot(db, organizationId);
    const bareRecorded = (await findBotVersion(db, bare.id, 1))!;

    // As the bots were before versions existed.
    await db.botVersion.deleteMany({ where: { botId: { in: [bot.id, bare.id] } } });
    const migration = path.join(findMigrationsDir(), '20261125054000_bot_versions_backfill', 'migration.sql');
    // Scoped to this test's bots: the shared database may hold other files' bots written around
    // the repositories (seedBots), which the migration itself would backfill too.
    const backfill = readFileSync(migration, 'utf8');
    const scoped = backfill.replace(' WHERE NOT EXISTS', ` WHERE b.id IN ('${bot.id}', '${bare.id}') AND NOT EXISTS`);
    expect(scoped).not.toBe(backfill);
    await db.$executeRawUnsafe(scoped);

    const backfilled = (await findBotVersion(db, bot.id, 1))!;
    expect(backfilled).toMatchObject({ version: 1, changes: [], restoredFrom: null });
    expect(backfilled.definition).toEqual(recorded.definition);
    expect((await findBotVersion(db, bare.id, 1))!.definition).toEqual(bareRecorded.definition);
    // Equal as jsonb too, which is how recordBotVersion compares (so no spurious version follows).
    const [same] = await db.$queryRaw<{ same: boolean }[]>`
      SELECT (steps = ${JSON.stringify(recorded.definition.steps)}::jsonb
              AND scripts = ${JSON.stringify(recorded.definition.scripts)}::jsonb
              AND manifest = ${JSON.stringify(recorded.definition.manifest)}::jsonb) AS same
        FROM "BotVersion" WHERE "botId" = ${bot.id} AND version = 1`;
    expect(same).toEqual({ same: true });
  });
});
