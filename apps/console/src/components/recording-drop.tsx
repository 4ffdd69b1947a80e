import type { Recording } from '@botfleet/sdk';
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { errorMessage } from '../api-errors';
import { readRecordingFile } from '../recording-file';

interface RecordingDropProps {
  /** The visible label, e.g. "Create a bot from a recording". */
  label: string;
  hint: string;
  /** Fields sent with the recording (e.g. the new bot's kind), shown above the file input. */
  children?: ComponentChildren;
  /** Receives the parsed recording; its rejection is shown under the zone. */
  onRecording(recording: Recording, fileName: string): Promise<void>;
}

/**
 * Accepts a Chrome DevTools Recorder export dropped on it, or chosen with the file input inside it
 * (the keyboard and touch path: dropping needs a mouse).
 */
export function RecordingDrop({ label, hint, children, onRecording }: RecordingDropProps) {
  const [over, setOver] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const inputId = `recording-${label.replace(/\W+/g, '-').toLowerCase()}`;

  const accept = async (file: File | undefined) => {
    if (!file) return;
    setBusy(true);
    setError(null);
    try {
      await onRecording(await readRecordingFile(file), file.name);
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div
      class={`drop-zone${over ? ' drop-over' : ''}`}
      onDragOver={(event) => {
        event.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(event) => {
        event.preventDefault();
        setOver(false);
        void accept(event.dataTransfer?.files[0]);
      }}
    >
      <label for={inputId}>{label}</label>
      <p class="hint">{hint}</p>
      {children}
      <input
        id={inputId}
        type="file"
        accept=".json,application/json"
        disabled={busy}
        onChange={(event) => {
          const input = event.currentTarget;
          void accept(input.files?.[0]).finally(() => {
            // Choosing the same file again must fire change again.
            input.value = '';
          });
        }}
      />
      {busy && <p aria-live="polite">Importing…</p>}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
