import { updateManifest, type Manifest, type UpdateManifestData } from '@botfleet/sdk';
import { useState } from 'preact/hooks';
import { fieldErrorsOf } from './api-errors';
import { useSession } from './console-session';
import { useAction } from './use-action';

/** The sections a PUT /bots/:botId/manifest may carry: each present one replaces the stored one. */
export type ManifestUpdate = UpdateManifestData['body'];

/**
 * The id of the input for a manifest field, from the path the API names it by in a 400's
 * `details` (`webhook.url`, `parameters.1.name`, `capabilities.resolution.width`): one mapping,
 * so every editor puts the API's message at the input it is about.
 */
export function manifestFieldId(path: string): string {
  return `manifest-${path.split('.').join('-')}`;
}

export interface ManifestSave {
  busy: boolean;
  error: unknown;
  /** The last save went through and nothing was edited since. */
  saved: boolean;
  /** Messages by field path: the API's (400 details), and those the form found before sending. */
  fieldErrors: Record<string, string>;
  /** The input's id and its message, for the field at this path. */
  field(path: string): { id: string; error: string | undefined };
  /** Sends one section; `then` gets the manifest as stored (secrets masked). */
  save(body: ManifestUpdate, then: (manifest: Manifest) => void): void;
  /** Refuses to send: what the form found wrong, by field path. */
  refuse(errors: Record<string, string>): void;
  /** Something was edited: "Saved." no longer holds. */
  edited(): void;
}

/**
 * One manifest editor's save: only its own section goes in the PUT, so the others (and the
 * browser session) stay as stored. After a save the bot has a new version: `onSaved` says so.
 */
export function useManifestSave(botId: string, onSaved: () => void): ManifestSave {
  const { client } = useSession();
  const action = useAction();
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({});
  const fieldErrors = { ...fieldErrorsOf(action.error), ...localErrors };
  return {
    busy: action.busy,
    error: action.error,
    saved: action.done !== null,
    fieldErrors,
    field: (path) => ({ id: manifestFieldId(path), error: fieldErrors[path] }),
    save(body, then) {
      setLocalErrors({});
      action.run(async () => {
        const { data } = await updateManifest({ client, path: { botId }, body, throwOnError: true });
        then(data);
        onSaved();
        return 'Saved.';
      });
    },
    refuse(errors) {
      action.setError(null);
      action.setDone(null);
      setLocalErrors(errors);
    },
    edited: () => action.setDone(null),
  };
}
