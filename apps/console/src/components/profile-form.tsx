import { useState } from 'preact/hooks';
import { fieldErrorsOf } from '../api-errors';
import { ErrorAlert } from './error-alert';
import { TextField } from './text-field';

export interface ProfileFormValues {
  name: string;
  /** Trimmed; '' when left empty. */
  description: string;
}

interface ProfileFormProps {
  /** Prefix of the inputs' ids: `${idPrefix}-name`, `${idPrefix}-description`. */
  idPrefix: string;
  initial: ProfileFormValues;
  descriptionLabel: string;
  submitLabel: string;
  busyLabel: string;
  /** Sends the values; what it resolves to is shown as the outcome (null: nothing to say). */
  onSubmit(values: ProfileFormValues): Promise<string | null>;
}

/** A profile's name and description with the API's limits: the create and the rename form. */
export function ProfileForm({
  idPrefix,
  initial,
  descriptionLabel,
  submitLabel,
  busyLabel,
  onSubmit,
}: ProfileFormProps) {
  const [name, setName] = useState(initial.name);
  const [description, setDescription] = useState(initial.description);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  const fieldErrors = fieldErrorsOf(error);

  return (
    <form
      class="form"
      onSubmit={(event) => {
        event.preventDefault();
        setBusy(true);
        setError(null);
        setDone(null);
        onSubmit({ name: name.trim(), description: description.trim() })
          .then((message) => setDone(message))
          .catch((caught: unknown) => setError(caught))
          .finally(() => setBusy(false));
      }}
    >
      <TextField
        id={`${idPrefix}-name`}
        label="Name"
        required
        maxLength={200}
        value={name}
        onInput={setName}
        error={fieldErrors.name}
      />
      <TextField
        id={`${idPrefix}-description`}
        label={descriptionLabel}
        maxLength={1000}
        value={description}
        onInput={setDescription}
      />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {busy ? busyLabel : submitLabel}
        </button>
        {done && <span role="status">{done}</span>}
      </div>
      <ErrorAlert error={error} />
    </form>
  );
}
