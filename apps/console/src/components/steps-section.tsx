import { importRecording, listSteps, type Step } from '@botfleet/sdk';
import { useState } from 'preact/hooks';
import { useSession } from '../console-session';
import { describeStep } from '../step-line';
import { useLoad } from '../use-load';
import { ErrorAlert } from './error-alert';
import { RecordingDrop } from './recording-drop';

interface Warning {
  recordingStep: number | null;
  message: string;
}

/** The bot's steps, one line each, and (for write keys) replacing them with a recording. */
export function StepsSection({ botId, initialWarnings }: { botId: string; initialWarnings: Warning[] }) {
  const { client, canWrite } = useSession();
  const [warnings, setWarnings] = useState<Warning[]>(initialWarnings);
  const steps = useLoad(async () => {
    const { data } = await listSteps({ client, path: { botId }, throwOnError: true });
    // Without format=recorder the answer is the botfleet steps.
    return 'data' in data ? (data.data as Step[]) : [];
  }, [botId]);

  return (
    <section aria-labelledby="steps-heading">
      <h2 id="steps-heading">Steps</h2>
      <ErrorAlert error={steps.error} />
      {steps.data &&
        (steps.data.length === 0 ? (
          <p>No steps: every run opens the target URL and ends.</p>
        ) : (
          <ol class="steps">
            {steps.data.map((step, index) => (
              <li key={index}>
                <code>{describeStep(step)}</code>
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
      {canWrite && (
        <RecordingDrop
          label="Replace the steps with a recording"
          hint="Drop a Chrome DevTools Recorder export (JSON) here, or choose the file. The generated script is regenerated."
          onRecording={async (recording) => {
            const { data } = await importRecording({ client, path: { botId }, body: recording, throwOnError: true });
            setWarnings(data.warnings);
            steps.reload();
          }}
        />
      )}
    </section>
  );
}
