import type { Bot } from '@botfleet/sdk';
import { TextField } from './text-field';
import { BOT_LOGIN_NOTICE } from '../api-errors';

export type BotKind = Bot['kind'];

/** A bot's own fields as typed: what both the create and the settings form edit. */
export interface BotDraft {
  name: string;
  targetUrl: string;
  /** Separated by commas, as typed. */
  tags: string;
  description: string;
}

export const EMPTY_BOT_DRAFT: BotDraft = { name: '', targetUrl: '', tags: '', description: '' };

export function draftOfBot(bot: Bot): BotDraft {
  return { name: bot.name, targetUrl: bot.targetUrl, tags: bot.tags.join(', '), description: bot.description ?? '' };
}

/** The body's fields of a draft: trimmed, tags split at commas (empty pieces and repeats dropped). */
export function fieldsOfDraft(draft: BotDraft): {
  name: string;
  targetUrl: string;
  tags: string[];
  description: string;
} {
  const tags = draft.tags
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
  return {
    name: draft.name.trim(),
    targetUrl: draft.targetUrl.trim(),
    tags: [...new Set(tags)],
    description: draft.description.trim(),
  };
}

/**
 * The API names a refused tag by its place in the list (`tags.2`): its message goes under the tags
 * input, naming which one.
 */
function tagsError(errors: Record<string, string>, draft: BotDraft): string | undefined {
  const tags = fieldsOfDraft(draft).tags;
  const messages = Object.entries(errors)
    .filter(([path]) => path === 'tags' || path.startsWith('tags.'))
    .map(([path, message]) => {
      const tag = tags[Number(path.slice('tags.'.length))];
      return path === 'tags' || tag === undefined ? message : `“${tag}” ${message}`;
    });
  return messages.length > 0 ? messages.join('; ') : undefined;
}

interface BotFieldsProps {
  /** Prefix of the inputs' ids: `${idPrefix}-name`, `${idPrefix}-target-url`, … */
  idPrefix: string;
  draft: BotDraft;
  onChange(change: Partial<BotDraft>): void;
  /** The API's messages by path (fieldErrorsOf). */
  errors: Record<string, string>;
  /** This key may not move where the bot starts: it holds a saved login (docs/sessions.md). */
  targetUrlLocked?: boolean;
}

/** Name, target URL, tags and description, with the API's limits and its complaints beside each. */
export function BotFields({ idPrefix, draft, onChange, errors, targetUrlLocked = false }: BotFieldsProps) {
  return (
    <>
      <TextField
        id={`${idPrefix}-name`}
        label="Name"
        required
        maxLength={200}
        value={draft.name}
        onInput={(name) => onChange({ name })}
        error={errors.name}
      />
      <TextField
        id={`${idPrefix}-target-url`}
        label="Target URL"
        required
        maxLength={2048}
        spellcheck={false}
        autocomplete="off"
        hint={
          targetUrlLocked
            ? `The http(s) page the bot works on. ${BOT_LOGIN_NOTICE}`
            : 'The http(s) page the bot works on.'
        }
        readOnly={targetUrlLocked}
        value={draft.targetUrl}
        onInput={(targetUrl) => onChange({ targetUrl })}
        error={errors.targetUrl}
      />
      <TextField
        id={`${idPrefix}-tags`}
        label="Tags"
        hint="Separated by commas, e.g. prices, nightly."
        value={draft.tags}
        onInput={(tags) => onChange({ tags })}
        error={tagsError(errors, draft)}
      />
      <TextField
        id={`${idPrefix}-description`}
        label="Description"
        rows={3}
        maxLength={2000}
        value={draft.description}
        onInput={(description) => onChange({ description })}
        error={errors.description}
      />
    </>
  );
}

const KINDS: Record<BotKind, string> = {
  extraction: 'Extraction: reads data from pages',
  action: 'Action: acts on a site with the parameters it is given',
};

const isKind = (value: string): value is BotKind => Object.hasOwn(KINDS, value);

/** The kind of a new bot (the API does not change it afterwards). */
export function KindField({
  id,
  value,
  onChange,
  error,
}: {
  id: string;
  value: BotKind;
  onChange(kind: BotKind): void;
  error?: string | undefined;
}) {
  return (
    <div class="field">
      <label for={id}>Kind</label>
      <select
        id={id}
        value={value}
        aria-describedby={error ? `${id}-error` : undefined}
        aria-invalid={error ? true : undefined}
        onChange={(event) => {
          const kind = event.currentTarget.value;
          if (isKind(kind)) onChange(kind);
        }}
      >
        {Object.entries(KINDS).map(([kind, label]) => (
          <option key={kind} value={kind}>
            {label}
          </option>
        ))}
      </select>
      {error && (
        <p id={`${id}-error`} class="field-error">
          {error}
        </p>
      )}
    </div>
  );
}
