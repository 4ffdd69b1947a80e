import type { Recording } from '@botfleet/sdk';
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { errorMessage } from '../api-errors';
import { readRecordingFile } from '../recording-file';
import { useAction } from '../use-action';

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
  const importing = useAction();
  const problem = importing.error === null ? null : errorMessage(importing.error);
  const inputId = `recording-${label.replace(/\W+/g, '-').toLowerCase()}`;

  /** Imports the file; `settled` runs once that has gone through or failed. */
  const accept = (file: File | undefined, settled = () => {}) => {
    if (!file) return;
    importing.run(async () => {
      try {
        await onRecording(await readRecordingFile(file), file.name);
      } finally {
        settled();
      }
    });
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
        accept(event.dataTransfer?.files[0]);
      }}
    >
      <label for={inputId}>{label}</label>
      <p class="hint">{hint}</p>
      {children}
      <input
        id={inputId}
        type="file"
        accept=".json,application/json"
        disabled={importing.busy}
        onChange={(event) => {
          const input = event.currentTarget;
          accept(input.files?.[0], () => {
            // Choosing the same file again must fire change again.
            input.value = '';
          });
        }}
      />
      {importing.busy && <p aria-live="polite">Importing…</p>}
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
    </div>
  );
}
