import type { StorageStateInput } from '@botfleet/sdk';
import { readJsonFile } from './json-file';

/** What the API takes as a profile's state (MAX_STORAGE_STATE_BYTES in @botfleet/core). */
const MAX_BYTES = 5 * 1024 * 1024;

/**
 * Reads a chosen file as a Playwright storage state. Only its outline is checked here, so the
 * message names the file; every cookie and origin is validated by the API (400 naming the field).
 */
export async function readStorageStateFile(file: File): Promise<StorageStateInput> {
  const parsed = await readJsonFile(file, {
    maxBytes: MAX_BYTES,
    notJsonHint: "save the state with Playwright's context.storageState()",
  });
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`${file.name} is not a storage state (a JSON object with "cookies" and "origins")`);
  }
  return parsed as StorageStateInput;
}
