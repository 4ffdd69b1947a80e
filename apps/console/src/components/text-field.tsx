import type { ComponentChildren } from 'preact';

interface TextFieldProps {
  id: string;
  label: ComponentChildren;
  value: string;
  onInput(value: string): void;
  /** The API's message for this field (from fieldErrorsOf), shown under it. */
  error?: string | undefined;
  /** A line under the input that it is described by (id `${id}-hint`). */
  hint?: ComponentChildren;
  type?: 'text' | 'password';
  required?: boolean;
  maxLength?: number;
  autocomplete?: string;
  spellcheck?: boolean;
}

/** A labelled one-line input of a form, with its hint and the API's complaint about it. */
export function TextField({ id, label, value, onInput, error, hint, type, ...input }: TextFieldProps) {
  const hintId = `${id}-hint`;
  // Preact types an input's attributes per type: it takes one literal type, not a union of them.
  const typed = type === 'password' ? { type } : type === 'text' ? { type } : {};
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        {...typed}
        {...input}
        value={value}
        aria-describedby={hint === undefined ? undefined : hintId}
        onInput={(event) => onInput(event.currentTarget.value)}
      />
      {hint !== undefined && (
        <p id={hintId} class="hint">
          {hint}
        </p>
      )}
      {error && <p class="field-error">{error}</p>}
    </div>
  );
}
