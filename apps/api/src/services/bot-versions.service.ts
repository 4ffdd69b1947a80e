import { AppError } from '@botfleet/core';
import { holdProfileOfOrganization, restoreBotVersion, type BotVersionRecord, type Db } from '@botfleet/db';
import { checkStepCredentials } from './credential-references';

/**
 * What a version names outside the bot must still exist for it to run: the profile its manifest's
 * session names and the credentials its fill steps fill from. Either gone is a conflict between
 * the version and the organization as it is now (409, naming it), not a bad request: restoring a
 * later version, or recreating the credential, resolves it.
 */
async function checkRestorable(tx: Db, organizationId: string, target: BotVersionRecord): Promise<void> {
  const profileId = target.manifest.session?.profileId;
  if (profileId !== undefined && !(await holdProfileOfOrganization(tx, organizationId, profileId))) {
    throw new AppError('conflict', `Version ${target.version} names profile '${profileId}', which no longer exists`, [
      {
        path: 'manifest.session.profileId',
        message: `names profile ${profileId}, which this organization no longer has`,
      },
    ]);
  }
  try {
    await checkStepCredentials(tx, organizationId, target.steps);
  } catch (err) {
    if (!(err instanceof AppError) || (err.code !== 'not_found' && err.code !== 'validation_error')) throw err;
    // The same findings as a PUT of these steps gets, without `in: body`: the steps are the version's.
    const details = Array.isArray(err.details)
      ? err.details.map(({ in: _in, ...issue }: { in?: string; path: string; message: string }) => issue)
      : err.details;
    throw new AppError('conflict', `Version ${target.version} cannot be restored: ${err.message}`, details);
  }
}

/**
 * Makes the version the bot's current definition as a new version (see restoreBotVersion), once
 * what it names is checked, inside the restore's transaction so nothing it checked can go in between.
 */
export async function restoreVersion(db: Db, organizationId: string, target: BotVersionRecord) {
  return restoreBotVersion(db, target, (tx) => checkRestorable(tx, organizationId, target));
}
