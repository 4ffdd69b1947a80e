import { deleteBot, updateBot, type Bot } from '@botfleet/sdk';
import { useEffect, useRef, useState } from 'preact/hooks';
import { fieldErrorsOf } from '../api-errors';
import { useSession } from '../console-session';
import { hrefOf, navigate } from '../routes';
import { useAction } from '../use-action';
import { BotFields, draftOfBot, fieldsOfDraft, type BotDraft } from './bot-fields';
import { ConfirmButton } from './confirm-button';
import { ErrorAlert } from './error-alert';
import { TextField } from './text-field';

const FORM_ID = 'bot-settings';

interface BotSettingsProps {
  bot: Bot;
  /** Its target URL is read-only: the bot holds a saved login and the key is not an admin key. */
  targetUrlLocked: boolean;
  onChanged(): void;
}

/**
 * What a write key may change of a bot itself (PATCH /bots/:botId): its settings in a form opened
 * on demand, pause and resume, and delete. Each change is read back by the page (`onChanged`).
 */
export function BotSettings({ bot, targetUrlLocked, onChanged }: BotSettingsProps) {
  const { client } = useSession();
  const [editing, setEditing] = useState(false);
  const action = useAction();
  const editButton = useRef<HTMLButtonElement>(null);
  const paused = bot.status === 'paused';

  const closeForm = () => {
    setEditing(false);
    editButton.current?.focus();
  };

  return (
    <>
      <div class="actions">
        <button
          type="button"
          class="secondary"
          ref={editButton}
          aria-expanded={editing}
          aria-controls={editing ? FORM_ID : undefined}
          onClick={() => {
            action.setDone(null);
            setEditing((open) => !open);
          }}
        >
          Edit settings
        </button>
        <button
          type="button"
          class="secondary"
          disabled={action.busy}
          onClick={() =>
            action.run(async () => {
              const status = paused ? 'active' : 'paused';
              await updateBot({ client, path: { botId: bot.id }, body: { status }, throwOnError: true });
              onChanged();
              return paused ? 'Resumed.' : 'Paused.';
            })
          }
        >
          {paused ? 'Resume bot' : 'Pause bot'}
        </button>
        <ConfirmButton
          label="Delete bot"
          question="Delete this bot with its runs, steps, schedule and artifacts?"
          confirmLabel="Delete the bot"
          busy={action.busy}
          onConfirm={() =>
            action.run(async () => {
              await deleteBot({ client, path: { botId: bot.id }, throwOnError: true });
              navigate(hrefOf({ page: 'bots' }));
            })
          }
        />
        {action.done && <span role="status">{action.done}</span>}
      </div>
      <ErrorAlert error={action.error} />
      {editing && (
        <SettingsForm
          bot={bot}
          targetUrlLocked={targetUrlLocked}
          onCancel={closeForm}
          onSaved={() => {
            closeForm();
            action.setDone('Saved.');
            onChanged();
          }}
        />
      )}
    </>
  );
}

interface SettingsDraft extends BotDraft {
  retryAttempts: string;
  retryDelaySeconds: string;
}

function SettingsForm({
  bot,
  targetUrlLocked,
  onSaved,
  onCancel,
}: {
  bot: Bot;
  targetUrlLocked: boolean;
  onSaved(): void;
  onCancel(): void;
}) {
  const { client } = useSession();
  const [draft, setDraft] = useState<SettingsDraft>({
    ...draftOfBot(bot),
    retryAttempts: String(bot.retry.attempts),
    retryDelaySeconds: String(bot.retry.delaySeconds),
  });
  const save = useAction();
  const fieldErrors = fieldErrorsOf(save.error);
  const form = useRef<HTMLFormElement>(null);
  const update = (change: Partial<SettingsDraft>) => setDraft((old) => ({ ...old, ...change }));
  // Opened from its button: the keyboard carries on in the form rather than after the buttons.
  useEffect(() => {
    form.current?.querySelector('input')?.focus();
  }, []);

  return (
    <section id={FORM_ID} aria-labelledby="bot-settings-heading">
      <h2 id="bot-settings-heading">Bot settings</h2>
      <form
        ref={form}
        class="form"
        aria-labelledby="bot-settings-heading"
        onSubmit={(event) => {
          event.preventDefault();
          const { description, ...fields } = fieldsOfDraft(draft);
          const body = {
            ...fields,
            description: description || null,
            retry: { attempts: Number(draft.retryAttempts), delaySeconds: Number(draft.retryDelaySeconds) },
          };
          save.run(async () => {
            await updateBot({ client, path: { botId: bot.id }, body, throwOnError: true });
            onSaved();
          });
        }}
      >
        <BotFields
          idPrefix="bot"
          draft={draft}
          onChange={update}
          errors={fieldErrors}
          targetUrlLocked={targetUrlLocked}
        />
        <fieldset>
          <legend>Retries of a failed run</legend>
          <TextField
            id="bot-retry-attempts"
            label="Tries after the first"
            hint="0 to 5; 0: a failed run is not retried."
            type="number"
            required
            value={draft.retryAttempts}
            onInput={(retryAttempts) => update({ retryAttempts })}
            error={fieldErrors['retry.attempts']}
          />
          <TextField
            id="bot-retry-delay"
            label="Pause before each retry (seconds)"
            hint="0 to 3600"
            type="number"
            required
            value={draft.retryDelaySeconds}
            onInput={(retryDelaySeconds) => update({ retryDelaySeconds })}
            error={fieldErrors['retry.delaySeconds']}
          />
        </fieldset>
        <div class="actions">
          <button type="submit" disabled={save.busy}>
            {save.busy ? 'Saving…' : 'Save settings'}
          </button>
          <button type="button" class="secondary" onClick={onCancel}>
            Cancel
          </button>
        </div>
        <ErrorAlert error={save.error} />
      </form>
    </section>
  );
}
