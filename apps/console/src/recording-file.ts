import type { Recording } from '@botfleet/sdk';
import { readJsonFile } from './json-file';

/** Chrome's exports are a few KiB; the API refuses a recording over 5 MiB anyway. */
const MAX_BYTES = 5 * 1024 * 1024;

/**
 * Reads a dropped or chosen file as a Chrome Recorder recording. Only the shape the API needs to
 * route it is checked here; the API validates every step and answers `invalid_recording`.
 */
export async function readRecordingFile(file: File): Promise<Recording> {
  const parsed = await readJsonFile(file, {
    maxBytes: MAX_BYTES,
    notJsonHint: "export the recording from Chrome's Recorder panel as JSON",
  });
  const recording = parsed as Partial<Recording> | null;
  if (typeof recording !== 'object' || recording === null || !Array.isArray(recording.steps)) {
    throw new Error(`${file.name} is not a Chrome Recorder recording (it has no "steps" list)`);
  }
  return { ...recording, title: typeof recording.title === 'string' ? recording.title : file.name } as Recording;
}
