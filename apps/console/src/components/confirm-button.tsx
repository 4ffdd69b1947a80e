import { useEffect, useRef, useState } from 'preact/hooks';

interface ConfirmButtonProps {
  /** The button that asks, e.g. "Delete". */
  label: string;
  /** What the second step says, e.g. "Delete this profile? Its saved versions go with it." */
  question: string;
  /** The button that does it, e.g. "Delete the profile". */
  confirmLabel: string;
  busy?: boolean;
  onConfirm(): void;
}

/**
 * A change that cannot be undone takes two steps on the page itself (no window.confirm, which
 * screen readers and tests handle poorly): the button shows the question, its confirmation and a
 * way back, and focus moves to the confirmation.
 */
export function ConfirmButton({ label, question, confirmLabel, busy = false, onConfirm }: ConfirmButtonProps) {
  const [asking, setAsking] = useState(false);
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirm.current?.focus();
  }, [asking]);

  if (!asking) {
    return (
      <button type="button" class="danger" disabled={busy} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <span class="confirm" role="group" aria-label={question}>
      <span>{question}</span>
      <button
        type="button"
        class="danger"
        ref={confirm}
        disabled={busy}
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" class="secondary" onClick={() => setAsking(false)}>
        Keep it
      </button>
    </span>
  );
}
