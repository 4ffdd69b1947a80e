import type { PrismaClient } from '../client';
import { createTestBot, createTestExecution, useTestOrganization } from '../testing';
import { claimExecutionWithinCap, endExecutionAttempt } from './execution-lifecycle';
import {
  findLatestProfileState,
  findNextProfileRun,
  newProfileId,
  PROFILE_VERSIONS_KEPT,
  saveProfileVersion,
} from './profiles';

/*
 * Runs sharing a profile take turns at the claim, oldest first, and a run's end state is saved
 * as the profile's next version in the transaction that ends it.
 */

let db: PrismaClient;
let organizationId: string;

useTestOrganization(
  (client, id) => {
    db = client;
    organizationId = id;
  },
  { poolSize: 6 },
);

async function profileBot() {
  const profile = await db.profile.create({ data: { id: newProfileId(), organizationId, name: `p-${Math.random()}` } });
  const bot = await createTestBot(db, organizationId, {
    manifest: { session: { profileId: profile.id, persist: 'onSuccess' } },
  });
  return { profileId: profile.id, botId: bot.id };
}

const claim = (executionId: string) => claimExecutionWithinCap(db, executionId, (own) => own);
const noProgress = () => ({ steps: [], logs: [], artifacts: [] });

describe('profile turns', () => {
  it('gives a new run its bot’s profile, and lets runs of one profile go one at a time, oldest first', async () => {
    const { profileId, botId } = await profileBot();
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await createTestExecution(db, { botId, organizationId }));
    expect(runs.map((r) => r.profileId)).toEqual([profileId, profileId, profileId]);

    // The newest cannot go before the older ones, nor the second before the first.
    expect(await claim(runs[2]!.id)).toBe('profile-busy');
    expect(await claim(runs[1]!.id)).toBe('profile-busy');
    const first = await claim(runs[0]!.id);
    expect(first).toMatchObject({ id: runs[0]!.id, profileId });
    // While the first runs, the next waits.
    expect(await claim(runs[1]!.id)).toBe('profile-busy');
    expect(await findNextProfileRun(db, profileId)).toBe(runs[1]!.id);

    await endExecutionAttempt(db, {
      executionId: runs[0]!.id,
      botId,
      attempt: 1,
      outcome: { status: 'completed', data: null },
      progress: noProgress(),
      profileState: { profileId, stateEnc: 'sealed-1', origins: [] },
    });
    expect(await findLatestProfileState(db, profileId)).toEqual({ version: 1, stateEnc: 'sealed-1' });
    expect(await db.profile.findUniqueOrThrow({ where: { id: profileId } })).toMatchObject({
      version: 1,
      lastExecutionId: runs[0]!.id,
    });
    expect(await claim(runs[2]!.id)).toBe('profile-busy');
    expect(await claim(runs[1]!.id)).toMatchObject({ id: runs[1]!.id });
  });

  it('lets exactly one of many runs claiming at once go', async () => {
    const { botId } = await profileBot();
    const runs = [];
    for (let i = 0; i < 6; i++) runs.push(await createTestExecution(db, { botId, organizationId }));
    const claims = await Promise.all(runs.map((r) => claim(r.id)));
    const claimed = claims.filter((c) => typeof c === 'object' && c !== null);
    expect(claimed).toHaveLength(1);
    expect(claimed[0]).toMatchObject({ id: runs[0]!.id });
  });

  it('leaves runs without a profile alone', async () => {
    const bot = await createTestBot(db, organizationId);
    const runs = [
      await createTestExecution(db, { botId: bot.id, organizationId }),
      await createTestExecution(db, { botId: bot.id, organizationId }),
    ];
    expect(runs[0]!.profileId).toBeNull();
    expect(await claim(runs[1]!.id)).toMatchObject({ id: runs[1]!.id });
    expect(await claim(runs[0]!.id)).toMatchObject({ id: runs[0]!.id });
  });

  it('keeps the newest versions only', async () => {
    const { profileId } = await profileBot();
    for (let i = 1; i <= PROFILE_VERSIONS_KEPT + 3; i++)
      await saveProfileVersion(db, { profileId, stateEnc: `sealed-${i}`, origins: [], source: 'import' });
    const versions = await db.profileVersion.findMany({ where: { profileId }, orderBy: { version: 'asc' } });
    expect(versions.map((v) => v.version)).toEqual(Array.from({ length: PROFILE_VERSIONS_KEPT }, (_, i) => i + 4));
    expect(await findLatestProfileState(db, profileId)).toEqual({
      version: PROFILE_VERSIONS_KEPT + 3,
      stateEnc: `sealed-${PROFILE_VERSIONS_KEPT + 3}`,
    });
  });
});
