import { createBot, type CreateBotResponse } from '@botfleet/sdk';
import { useEffect, useRef, useState } from 'preact/hooks';
import { fieldErrorsOf } from '../api-errors';
import { useSession } from '../console-session';
import { hrefOf, navigate } from '../routes';
import { useAction } from '../use-action';
import { BotFields, EMPTY_BOT_DRAFT, fieldsOfDraft, KindField, type BotDraft, type BotKind } from './bot-fields';
import { ErrorAlert } from './error-alert';
import { RecordingDrop } from './recording-drop';

const FORM_ID = 'new-bot';

/** Opens the bot just created; the bot page shows what an import skipped or changed. */
function openCreated(bot: CreateBotResponse): void {
  navigate(hrefOf({ page: 'bot', botId: bot.id }), { importWarnings: bot.warnings ?? [] });
}

/** The two ways a write key makes a bot (POST /bots): from a recording, or from scratch. */
export function CreateBot() {
  const { client } = useSession();
  const [recordingKind, setRecordingKind] = useState<BotKind>('extraction');
  const [open, setOpen] = useState(false);
  const openButton = useRef<HTMLButtonElement>(null);

  return (
    <>
      <RecordingDrop
        label="Create a bot from a recording"
        hint="Drop a Chrome DevTools Recorder export (JSON) here, or choose the file. Its title and first URL name the bot."
        onRecording={async (recording) => {
          const body = { recording, kind: recordingKind };
          openCreated((await createBot({ client, body, throwOnError: true })).data);
        }}
      >
        <KindField id="recording-kind" value={recordingKind} onChange={setRecordingKind} />
      </RecordingDrop>
      <div class="actions">
        <button
          type="button"
          class="secondary"
          ref={openButton}
          aria-expanded={open}
          aria-controls={open ? FORM_ID : undefined}
          onClick={() => setOpen((shown) => !shown)}
        >
          Create a bot from scratch
        </button>
      </div>
      {open && (
        <NewBotForm
          onCancel={() => {
            setOpen(false);
            openButton.current?.focus();
          }}
        />
      )}
    </>
  );
}

function NewBotForm({ onCancel }: { onCancel(): void }) {
  const { client } = useSession();
  const [draft, setDraft] = useState<BotDraft>(EMPTY_BOT_DRAFT);
  const [kind, setKind] = useState<BotKind>('extraction');
  const create = useAction();
  const fieldErrors = fieldErrorsOf(create.error);
  const section = useRef<HTMLElement>(null);
  // Opened from its button: the keyboard carries on in the form.
  useEffect(() => {
    section.current?.querySelector('input')?.focus();
  }, []);

  return (
    <section id={FORM_ID} ref={section} aria-labelledby="new-bot-heading">
      <h2 id="new-bot-heading">New bot</h2>
      <form
        class="form"
        aria-labelledby="new-bot-heading"
        onSubmit={(event) => {
          event.preventDefault();
          const { description, ...fields } = fieldsOfDraft(draft);
          const body = { ...fields, kind, ...(description ? { description } : {}) };
          create.run(async () => openCreated((await createBot({ client, body, throwOnError: true })).data));
        }}
      >
        <BotFields
          idPrefix="new-bot"
          draft={draft}
          onChange={(change) => setDraft((old) => ({ ...old, ...change }))}
          errors={fieldErrors}
        />
        <KindField id="new-bot-kind" value={kind} onChange={setKind} error={fieldErrors.kind} />
        <div class="actions">
          <button type="submit" disabled={create.busy}>
            {create.busy ? 'Creating…' : 'Create bot'}
          </button>
          <button type="button" class="secondary" onClick={onCancel}>
            Cancel
          </button>
        </div>
        <ErrorAlert error={create.error} />
      </form>
    </section>
  );
}
