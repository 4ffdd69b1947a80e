import { restoreBotVersion } from '@botfleet/sdk';
import { useSession } from '../console-session';
import { useAction } from '../use-action';
import { ConfirmButton } from './confirm-button';
import { ErrorAlert } from './error-alert';

interface RestoreVersionButtonProps {
  botId: string;
  version: number;
  /**
   * The key may change this bot (the bot page knows whether it holds a saved login, which needs an
   * admin key); without it, a write key sees the button, and a refusal says why.
   */
  canChange?: boolean;
  /** The version the restore made (or the current one, when it already was that definition). */
  onRestored(current: number): void;
}

/**
 * Makes an earlier version the bot's current one, after a confirmation: the API copies its steps,
 * scripts and manifest (secrets included) into a new version. For write keys only.
 */
export function RestoreVersionButton({ botId, version, canChange = true, onRestored }: RestoreVersionButtonProps) {
  const { client, canWrite } = useSession();
  const restore = useAction();
  if (!canWrite || !canChange) return null;
  return (
    <>
      <ConfirmButton
        label={`Restore version ${version}`}
        question={`Make version ${version} current again? It becomes a new version; runs already triggered keep theirs.`}
        confirmLabel={`Yes, restore version ${version}`}
        busy={restore.busy}
        onConfirm={() =>
          restore.run(async () => {
            const { data } = await restoreBotVersion({ client, path: { botId, version }, throwOnError: true });
            onRestored(data.version);
          })
        }
      />
      <ErrorAlert error={restore.error} />
    </>
  );
}
