import { restoreBotVersion } from '@botfleet/sdk';
import { useState } from 'preact/hooks';
import { useSession } from '../console-session';
import { ConfirmButton } from './confirm-button';
import { ErrorAlert } from './error-alert';

interface RestoreVersionButtonProps {
  botId: string;
  version: number;
  /** The version the restore made (or the current one, when it already was that definition). */
  onRestored(current: number): void;
}

/**
 * Makes an earlier version the bot's current one, after a confirmation: the API copies its steps,
 * scripts and manifest (secrets included) into a new version. For write keys only.
 */
export function RestoreVersionButton({ botId, version, onRestored }: RestoreVersionButtonProps) {
  const { client, canWrite } = useSession();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  if (!canWrite) return null;
  return (
    <>
      <ConfirmButton
        label={`Restore version ${version}`}
        question={`Make version ${version} current again? It becomes a new version; runs already triggered keep theirs.`}
        confirmLabel={`Yes, restore version ${version}`}
        busy={busy}
        onConfirm={() => {
          setBusy(true);
          setError(null);
          restoreBotVersion({ client, path: { botId, version }, throwOnError: true })
            .then(({ data }) => onRestored(data.version))
            .catch((caught: unknown) => setError(caught))
            .finally(() => setBusy(false));
        }}
      />
      <ErrorAlert error={error} />
    </>
  );
}
