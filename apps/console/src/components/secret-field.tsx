import { useEffect, useRef } from 'preact/hooks';
import { TextField } from './text-field';

/** What the form holds for a write-only secret: the console never has the stored one. */
export interface SecretDraft {
  /** The API says one is stored (it reads back masked). */
  stored: boolean;
  /** A new one is being typed to replace the stored one. */
  replacing: boolean;
  value: string;
}

export const secretDraftOf = (readBack: string | undefined): SecretDraft => ({
  stored: readBack !== undefined,
  replacing: false,
  value: '',
});

/** The secret a save sends: a new one typed, or nothing, which keeps the stored one. */
export const secretToSend = (draft: SecretDraft): string | undefined =>
  (draft.replacing || !draft.stored) && draft.value !== '' ? draft.value : undefined;

interface SecretFieldProps {
  id: string;
  /** e.g. "Secret": the buttons read "Replace secret", "Clear secret". */
  label: string;
  draft: SecretDraft;
  onChange(draft: SecretDraft): void;
  /** Removes the stored secret on the next save (how, the form knows). */
  onClear(): void;
  /** What clearing does, said beside the button. */
  clearHint: string;
  error?: string | undefined;
  hint?: string;
}

/**
 * A write-only secret: once stored it only shows as "set", with "Replace" (type a new one) and
 * "Clear"; left as it is, a save keeps it. The typed value is never read back into the page.
 */
export function SecretField({ id, label, draft, onChange, onClear, clearHint, error, hint }: SecretFieldProps) {
  const replaceButton = useRef<HTMLButtonElement>(null);
  const toggled = useRef(false);
  // Focus follows the switch between "set" and typing a new one, so the keyboard is not dropped.
  useEffect(() => {
    if (!toggled.current) return;
    toggled.current = false;
    if (draft.replacing) document.getElementById(id)?.focus();
    else replaceButton.current?.focus();
  }, [draft.replacing, id]);
  const toggle = (replacing: boolean) => {
    toggled.current = true;
    onChange({ ...draft, replacing, value: '' });
  };
  const lower = label.toLowerCase();

  if (draft.stored && !draft.replacing) {
    const stateId = `${id}-state`;
    return (
      <div class="field" role="group" aria-labelledby={`${id}-label`}>
        <span id={`${id}-label`} class="label">
          {label}
        </span>
        <p id={stateId} data-testid={`${id}-state`}>
          Set. It is never shown; a save keeps it.
        </p>
        <div class="actions">
          <button
            type="button"
            class="secondary"
            ref={replaceButton}
            aria-describedby={stateId}
            onClick={() => toggle(true)}
          >
            Replace {lower}
          </button>
          <button type="button" class="secondary" aria-describedby={`${id}-clear-hint`} onClick={onClear}>
            Clear {lower}
          </button>
        </div>
        <p id={`${id}-clear-hint`} class="hint">
          {clearHint}
        </p>
        {error && <p class="field-error">{error}</p>}
      </div>
    );
  }
  return (
    <>
      <TextField
        id={id}
        label={draft.stored ? `New ${lower}` : label}
        type="password"
        autocomplete="new-password"
        spellcheck={false}
        maxLength={1000}
        value={draft.value}
        onInput={(value) => onChange({ ...draft, value })}
        hint={hint}
        error={error}
      />
      {draft.stored && (
        <div class="actions">
          <button type="button" class="secondary" onClick={() => toggle(false)}>
            Keep the stored {lower}
          </button>
        </div>
      )}
    </>
  );
}
