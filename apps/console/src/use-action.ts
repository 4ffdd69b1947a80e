import { useState } from 'preact/hooks';

/** A write the page sends on request (a save, a delete, a rerun) and what came of it. */
export interface Action {
  /** It is in flight: its controls are disabled and say so. */
  busy: boolean;
  /** Why the last one failed (for ErrorAlert, and fieldErrorsOf to put a 400's messages at their fields). */
  error: unknown;
  /** What the last one that went through has to say, for a `role="status"` line (null: nothing). */
  done: string | null;
  /**
   * Sends `write`: the last error and outcome go, `busy` holds until it settles, and what it
   * resolves to (a message, or nothing) becomes `done`. After a success it may navigate or ask
   * the page to read again itself; its rejection becomes `error`.
   */
  run(write: () => Promise<string | null | void>): void;
  /** Shows what the form found wrong before sending, or clears the error (null). */
  setError(error: unknown): void;
  /** Shows an outcome reached elsewhere (a form that closed after its save), or clears it (null). */
  setDone(message: string | null): void;
}

/** One write in flight at a time, with its error and its outcome: the one home of that state. */
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  return {
    busy,
    error,
    done,
    run(write) {
      setBusy(true);
      setError(null);
      setDone(null);
      write()
        .then((message) => setDone(message ?? null))
        .catch((caught: unknown) => setError(caught))
        .finally(() => setBusy(false));
    },
    setError,
    setDone,
  };
}
