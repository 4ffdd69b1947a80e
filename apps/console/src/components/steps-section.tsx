import { importRecording, listCredentials, type Step } from '@botfleet/sdk';
import { useState } from 'preact/hooks';
import { useSession } from '../console-session';
import { collectPages } from '../list-pages';
import { describeStep } from '../step-line';
import { useLoad, type Loaded } from '../use-load';
import { ErrorAlert } from './error-alert';
import { RecordingDrop } from './recording-drop';
import { StepsEditor } from './steps-editor';

interface Warning {
  recordingStep: number | null;
  message: string;
}

type FillStep = Extract<Step, { action: 'fill' }>;

/**
 * The bot's steps, one line each; for a key that may change them, the editor (StepsEditor: add,
 * edit, move, delete, credential bindings) and replacing them with a recording.
 */
export function StepsSection({
  botId,
  steps,
  canChange,
  initialWarnings,
  onChanged,
}: {
  botId: string;
  /** The bot page reads them: whether a fill uses a credential decides who may change the bot. */
  steps: Loaded<Step[]>;
  /** A write key, and the bot holds no saved login (else an admin key): see the bot page. */
  canChange: boolean;
  initialWarnings: Warning[];
  /** After the steps were saved (the bot has a new version). */
  onChanged(): void;
}) {
  const { client } = useSession();
  const [warnings, setWarnings] = useState<Warning[]>(initialWarnings);
  const fills = (steps.data ?? []).filter((step): step is FillStep => step.action === 'fill');
  // Names for the steps that use a credential, and the editor's choices for any fill step.
  const needsCredentials = canChange || fills.some((step) => typeof step.value !== 'string');
  const credentials = useLoad(
    async () =>
      needsCredentials
        ? collectPages(
            async (cursor) =>
              (await listCredentials({ client, query: { limit: 100, cursor }, throwOnError: true })).data,
          )
        : [],
    [needsCredentials],
  );
  const credentialName = (id: string) => credentials.data?.find((credential) => credential.id === id)?.name;

  return (
    <section class="wide" aria-labelledby="steps-heading">
      <h2 id="steps-heading">Steps</h2>
      <ErrorAlert error={steps.error} />
      <ErrorAlert error={credentials.error} />
      {steps.data &&
        (canChange ? (
          <StepsEditor
            botId={botId}
            steps={steps.data}
            credentials={credentials.data}
            credentialName={credentialName}
            onSaved={() => {
              steps.reload();
              onChanged();
            }}
          />
        ) : steps.data.length === 0 ? (
          <p>No steps: every run opens the target URL and ends.</p>
        ) : (
          <ol class="steps">
            {steps.data.map((step, index) => (
              <li key={index}>
                <code>{describeStep(step, credentialName)}</code>
              </li>
            ))}
          </ol>
        ))}
      {warnings.length > 0 && (
        <div class="notice" role="status">
          <p>The import skipped or changed:</p>
          <ul>
            {warnings.map((warning, index) => (
              <li key={index}>
                {warning.recordingStep === null ? '' : `Recording step ${warning.recordingStep + 1}: `}
                {warning.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      {canChange && (
        <RecordingDrop
          label="Replace the steps with a recording"
          hint="Drop a Chrome DevTools Recorder export (JSON) here, or choose the file. The generated script is regenerated."
          onRecording={async (recording) => {
            const { data } = await importRecording({ client, path: { botId }, body: recording, throwOnError: true });
            setWarnings(data.warnings);
            steps.reload();
            onChanged();
          }}
        />
      )}
    </section>
  );
}
