import {
  AppError,
  EMPTY_STORAGE_STATE,
  MAX_STORAGE_STATE_BYTES,
  StorageStateSchema,
  sealStorageState,
  StorageStateTooLarge,
  type SecretBox,
  type StorageState,
} from '@botfleet/core';
import { findLatestProfileState, saveProfileVersion, type Db } from '@botfleet/db';

/*
 * A profile's state crosses the API only as a whole Playwright storage state, with an admin key
 * (export, import) or not at all (reset): sealed with SECRETS_KEY before it is stored, opened only
 * here for an export.
 */

/** The profile's latest state, opened; the empty state when none was ever saved. */
export async function exportProfileState(db: Db, box: SecretBox, profileId: string): Promise<StorageState> {
  const latest = await findLatestProfileState(db, profileId);
  if (!latest) return EMPTY_STORAGE_STATE;
  return StorageStateSchema.parse(JSON.parse(box.decrypt(latest.stateEnc)));
}

/**
 * Saves `state` as the profile's next version. The bound is on the state as stored (normalised
 * JSON), which is what every run of the profile loads. Returns false when the profile is gone.
 */
export async function saveProfileState(
  db: Db,
  box: SecretBox,
  profileId: string,
  state: StorageState,
  source: 'import' | 'reset',
): Promise<boolean> {
  let sealed: ReturnType<typeof sealStorageState>;
  try {
    sealed = sealStorageState(box, state);
  } catch (error) {
    if (!(error instanceof StorageStateTooLarge)) throw error;
    throw new AppError(
      'payload_too_large',
      `The storage state takes ${error.bytes} bytes as JSON; a profile holds at most ${MAX_STORAGE_STATE_BYTES}`,
      { limitBytes: MAX_STORAGE_STATE_BYTES },
    );
  }
  const version = await saveProfileVersion(db, { profileId, ...sealed, source });
  return version !== null;
}
