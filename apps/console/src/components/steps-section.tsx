import { importRecording, listCredentials, listSteps, replaceSteps, type Credential, type Step } from '@botfleet/sdk';
import { useState } from 'preact/hooks';
import { useSession } from '../console-session';
import { collectPages } from '../list-pages';
import { hrefOf } from '../routes';
import { describeStep } from '../step-line';
import { useLoad } from '../use-load';
import { ErrorAlert } from './error-alert';
import { Link } from './link';
import { RecordingDrop } from './recording-drop';

interface Warning {
  recordingStep: number | null;
  message: string;
}

type FillStep = Extract<Step, { action: 'fill' }>;
type CredentialField = 'username' | 'password' | 'totp';

const FIELD_LABELS: Record<CredentialField, string> = {
  username: 'username',
  password: 'password',
  totp: 'TOTP code',
};

/** The fields a credential can give: the API refuses a step bound to one it does not have. */
function fieldsOf(credential: Credential): CredentialField[] {
  const fields: CredentialField[] = [];
  if (credential.username !== null) fields.push('username');
  if (credential.hasPassword) fields.push('password');
  if (credential.hasTotp) fields.push('totp');
  return fields;
}

/**
 * The bot's steps, one line each, and (for write keys) replacing them with a recording, or binding
 * a fill step to a credential field so the step no longer holds the text it types.
 */
export function StepsSection({
  botId,
  initialWarnings,
  onChanged,
}: {
  botId: string;
  initialWarnings: Warning[];
  /** After the steps were saved (the bot has a new version). */
  onChanged(): void;
}) {
  const { client, canWrite } = useSession();
  const [warnings, setWarnings] = useState<Warning[]>(initialWarnings);
  const [binding, setBinding] = useState<number | null>(null);
  const steps = useLoad(async () => {
    const { data } = await listSteps({ client, path: { botId }, throwOnError: true });
    // Without format=recorder the answer is the botfleet steps.
    return 'data' in data ? (data.data as Step[]) : [];
  }, [botId]);
  const fills = (steps.data ?? []).filter((step): step is FillStep => step.action === 'fill');
  // Names for the steps that use a credential, and choices for a write key's fill steps.
  const needsCredentials = fills.some((step) => typeof step.value !== 'string') || (canWrite && fills.length > 0);
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
    <section aria-labelledby="steps-heading">
      <h2 id="steps-heading">Steps</h2>
      <ErrorAlert error={steps.error} />
      <ErrorAlert error={credentials.error} />
      {steps.data &&
        (steps.data.length === 0 ? (
          <p>No steps: every run opens the target URL and ends.</p>
        ) : (
          <ol class="steps">
            {steps.data.map((step, index) => (
              <li key={index}>
                <code>{describeStep(step, credentialName)}</code>
                {canWrite && step.action === 'fill' && typeof step.value === 'string' && (
                  <>
                    {' '}
                    <button
                      type="button"
                      class="link-button"
                      aria-expanded={binding === index}
                      aria-controls={binding === index ? `bind-step-${index}` : undefined}
                      onClick={() => setBinding(binding === index ? null : index)}
                    >
                      {binding === index ? 'Keep the text' : `Use a credential for step ${index + 1}`}
                    </button>
                  </>
                )}
                {binding === index && steps.data && (
                  <BindCredentialForm
                    id={`bind-step-${index}`}
                    stepNumber={index + 1}
                    credentials={credentials.data}
                    onBind={async (value) => {
                      const next = (steps.data ?? []).map((other, i) =>
                        i === index && other.action === 'fill' ? { ...other, value } : other,
                      );
                      await replaceSteps({ client, path: { botId }, body: { steps: next }, throwOnError: true });
                      setBinding(null);
                      steps.reload();
                      onChanged();
                    }}
                  />
                )}
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
            onChanged();
          }}
        />
      )}
    </section>
  );
}

interface BindCredentialFormProps {
  id: string;
  stepNumber: number;
  /** Undefined while they load. */
  credentials: Credential[] | undefined;
  /** Saves the steps with this step's value replaced; a rejection is shown in the form. */
  onBind(value: { credential: string; field: CredentialField }): Promise<void>;
}

/** Picks a credential and one of its fields for a fill step (the whole steps list is saved again). */
function BindCredentialForm({ id, stepNumber, credentials, onBind }: BindCredentialFormProps) {
  const usable = (credentials ?? []).filter((credential) => fieldsOf(credential).length > 0);
  const [credentialId, setCredentialId] = useState('');
  const [field, setField] = useState<CredentialField | ''>('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  // The first of each list until the person picks another (the lists may arrive after the form opens).
  const chosen = usable.find((credential) => credential.id === credentialId) ?? usable[0];
  const fields = chosen ? fieldsOf(chosen) : [];
  const chosenField = field !== '' && fields.includes(field) ? field : fields[0];

  if (credentials === undefined) {
    return (
      <p id={id} aria-live="polite">
        Loading credentials…
      </p>
    );
  }
  if (usable.length === 0) {
    return (
      <p id={id} class="hint">
        No credential to use yet: create one on the <Link href={hrefOf({ page: 'credentials' })}>Credentials page</Link>
        .
      </p>
    );
  }
  return (
    <form
      id={id}
      class="form"
      aria-label={`Use a credential for step ${stepNumber}`}
      onSubmit={(event) => {
        event.preventDefault();
        if (!chosen || !chosenField) return;
        setBusy(true);
        setError(null);
        onBind({ credential: chosen.id, field: chosenField })
          .catch((caught: unknown) => setError(caught))
          .finally(() => setBusy(false));
      }}
    >
      <div class="field">
        <label for={`${id}-credential`}>Credential</label>
        <select
          id={`${id}-credential`}
          value={chosen?.id}
          onChange={(event) => setCredentialId(event.currentTarget.value)}
        >
          {usable.map((credential) => (
            <option key={credential.id} value={credential.id}>
              {credential.name}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for={`${id}-field`}>Field</label>
        <select
          id={`${id}-field`}
          value={chosenField}
          onChange={(event) => setField(event.currentTarget.value as CredentialField)}
        >
          {fields.map((name) => (
            <option key={name} value={name}>
              {FIELD_LABELS[name]}
            </option>
          ))}
        </select>
      </div>
      <div class="actions">
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : 'Use it'}
        </button>
      </div>
      <ErrorAlert error={error} />
    </form>
  );
}
