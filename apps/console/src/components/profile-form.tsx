import { useState } from 'preact/hooks';
import { fieldErrorsOf } from '../api-errors';
import { useAction } from '../use-action';
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
  const save = useAction();
  const fieldErrors = fieldErrorsOf(save.error);

  return (
    <form
      class="form"
      onSubmit={(event) => {
        event.preventDefault();
        save.run(() => onSubmit({ name: name.trim(), description: description.trim() }));
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
        <button type="submit" disabled={save.busy}>
          {save.busy ? busyLabel : submitLabel}
        </button>
        {save.done && <span role="status">{save.done}</span>}
      </div>
      <ErrorAlert error={save.error} />
    </form>
  );
}
