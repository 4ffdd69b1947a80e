import type { ComponentChildren } from 'preact';

interface TextFieldProps {
  id: string;
  label: ComponentChildren;
  value: string;
  onInput(value: string): void;
  /** The API's message for this field (from fieldErrorsOf), shown under it (id `${id}-error`). */
  error?: string | undefined;
  /** A line under the input that it is described by (id `${id}-hint`). */
  hint?: ComponentChildren;
  type?: 'text' | 'password' | 'number';
  /** For a number: 'any' takes decimals (the API judges the value). */
  step?: number | 'any';
  /** The id of a datalist of suggestions. */
  list?: string;
  /** A text area of this many rows instead of a one-line input. */
  rows?: number;
  required?: boolean;
  maxLength?: number;
  autocomplete?: string;
  spellcheck?: boolean;
  /** Shown and sent, not editable (the hint says why). */
  readOnly?: boolean;
}

/** A labelled input of a form, with its hint and the API's complaint about it. */
export function TextField({
  id,
  label,
  value,
  onInput,
  error,
  hint,
  type,
  rows,
  step,
  list,
  ...input
}: TextFieldProps) {
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [hint === undefined ? null : hintId, error ? errorId : null].filter(Boolean).join(' ');
  const common = {
    id,
    ...input,
    value,
    'aria-describedby': describedBy || undefined,
    'aria-invalid': error ? true : undefined,
  };
  // Preact types an input's attributes per type: it takes one literal type, not a union of them.
  // A password input takes no suggestions list.
  const typed =
    type === 'password'
      ? { type }
      : type === 'text'
        ? { type, list }
        : type === 'number'
          ? { type, step, list }
          : { list };
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {rows === undefined ? (
        <input {...common} {...typed} onInput={(event) => onInput(event.currentTarget.value)} />
      ) : (
        <textarea {...common} rows={rows} onInput={(event) => onInput(event.currentTarget.value)} />
      )}
      {hint !== undefined && (
        <p id={hintId} class="hint">
          {hint}
        </p>
      )}
      {error && (
        <p id={errorId} class="field-error">
          {error}
        </p>
      )}
    </div>
  );
}
