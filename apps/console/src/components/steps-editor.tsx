import { replaceSteps, type Credential, type Step } from '@botfleet/sdk';
import { useEffect, useState } from 'preact/hooks';
import { fieldErrorsOf } from '../api-errors';
import { useSession } from '../console-session';
import { draftOf, stepErrorsOf, stepOf, withAction, type StepDraft } from '../step-draft';
import { describeStep, type CredentialNames } from '../step-line';
import { STEP_ACTIONS } from '../step-schema';
import { useAction } from '../use-action';
import { ErrorAlert } from './error-alert';
import { StepFields } from './step-fields';

/**
 * A step in the editor: a stored one as it was until its fields are first changed (so what the
 * form does not show is sent back untouched), then, like a new one, as drafted.
 */
type Item = { key: number } & ({ stored: Step; draft: null } | { stored: null; draft: StepDraft });

/** Keys are stable across moves, for ids and focus. */
let nextKey = 0;
const itemOf = (step: Step): Item => ({ key: nextKey++, stored: step, draft: null });

const draftOfItem = (item: Item): StepDraft => item.draft ?? draftOf(item.stored);

/** What the API gets for a step: a stored one as it was (without its old index), else the draft. */
function toSend(item: Item): { step: Step; errors: Record<string, string> } {
  if (item.draft) return stepOf(item.draft);
  const { index: _index, ...step } = item.stored;
  return { step: step as Step, errors: {} };
}

/** The step's line: as the list reads it, or the action's name while a draft cannot be read as one. */
function lineOf(item: Item, credentialName: CredentialNames): string {
  const { step, errors } = toSend(item);
  return Object.keys(errors).length > 0 ? step.action : describeStep(step, credentialName);
}

interface StepsEditorProps {
  botId: string;
  /** The stored steps: the editor starts again from them whenever they are read again. */
  steps: Step[];
  credentials: Credential[] | undefined;
  credentialName: CredentialNames;
  /** After a save (the bot has a new version, the steps are read again). */
  onSaved(): void;
}

/**
 * The steps for a write key: add, edit (each action's fields as the API's Step schema describes
 * them), move and delete them, then save the whole list at once (PUT steps: one new version).
 * Moves and deletions are undone by "Discard changes" until then.
 */
export function StepsEditor({ botId, steps, credentials, credentialName, onSaved }: StepsEditorProps) {
  const { client } = useSession();
  const [items, setItems] = useState<Item[]>(() => steps.map(itemOf));
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());
  const [dirty, setDirty] = useState(false);
  const [newAction, setNewAction] = useState(STEP_ACTIONS[0]?.action ?? '');
  const saving = useAction();
  /** The editor's own complaints (a number that is none, JSON that is not), by step key. */
  const [localErrors, setLocalErrors] = useState<Record<number, Record<string, string>>>({});
  const [status, setStatus] = useState('');
  const [focusId, setFocusId] = useState<string | null>(null);

  useEffect(() => {
    setItems(steps.map(itemOf));
    setOpen(new Set());
    setDirty(false);
  }, [steps]);

  useEffect(() => {
    if (focusId === null) return;
    document.getElementById(focusId)?.focus();
    setFocusId(null);
  }, [focusId]);

  const apiErrors = fieldErrorsOf(saving.error);
  const change = (next: Item[], announce: string) => {
    setItems(next);
    setDirty(true);
    setStatus(announce);
    // The API's messages name steps by position: after a move they would point at the wrong ones.
    saving.setError(null);
  };
  const toggle = (key: number, opened: boolean) => {
    const next = new Set(open);
    if (opened) next.add(key);
    else next.delete(key);
    setOpen(next);
  };
  const edit = (key: number, update: (draft: StepDraft) => StepDraft) => {
    setItems(
      items.map((item): Item => (item.key === key ? { key, stored: null, draft: update(draftOfItem(item)) } : item)),
    );
    setDirty(true);
    setStatus('');
  };
  const move = (index: number, by: -1 | 1) => {
    const target = index + by;
    const moved = items[index];
    if (!moved || target < 0 || target >= items.length) return;
    const next = items.filter((_, i) => i !== index);
    next.splice(target, 0, moved);
    change(next, `Step ${index + 1} moved to ${target + 1}. Not saved yet.`);
    // Focus stays on the moved step's button, or its other one at the end of the list.
    const atEdge = by === -1 ? target === 0 : target === items.length - 1;
    setFocusId(`step-${moved.key}-${(by === -1) !== atEdge ? 'up' : 'down'}`);
  };
  const remove = (index: number) => {
    const next = items.filter((_, i) => i !== index);
    change(next, `Step ${index + 1} deleted. Not saved yet.`);
    const neighbour = next[index] ?? next[index - 1];
    setFocusId(neighbour ? `step-${neighbour.key}-edit` : 'new-step-action');
  };
  const add = () => {
    const item: Item = { key: nextKey++, stored: null, draft: draftOf({ action: newAction }) };
    change([...items, item], `Step ${items.length + 1} added. Not saved yet.`);
    toggle(item.key, true);
    setFocusId(`step-${item.key}-action`);
  };
  const discard = () => {
    setItems(steps.map(itemOf));
    setOpen(new Set());
    setDirty(false);
    saving.setError(null);
    setLocalErrors({});
    setStatus('Changes discarded.');
  };
  const save = () => {
    const built = items.map(toSend);
    const local: Record<number, Record<string, string>> = {};
    built.forEach(({ errors }, i) => {
      if (Object.keys(errors).length > 0) local[items[i]!.key] = errors;
    });
    setLocalErrors(local);
    saving.setError(null);
    if (Object.keys(local).length > 0) {
      setOpen(new Set([...open, ...Object.keys(local).map(Number)]));
      setStatus('Some fields need fixing before the steps can be saved.');
      return;
    }
    saving.run(async () => {
      const body = { steps: built.map(({ step }) => step) };
      try {
        await replaceSteps({ client, path: { botId }, body, throwOnError: true });
      } catch (caught) {
        // Open every step the API found fault with, so its message shows at its field.
        const paths = Object.keys(fieldErrorsOf(caught));
        const faulty = items.filter((_, i) => paths.some((path) => path.startsWith(`steps.${i}`)));
        setOpen(new Set([...open, ...faulty.map((item) => item.key)]));
        setStatus('');
        throw caught;
      }
      setStatus(`Saved ${built.length} ${built.length === 1 ? 'step' : 'steps'}.`);
      onSaved();
    });
  };

  return (
    <form
      class="steps-editor"
      aria-label="Edit the steps"
      onSubmit={(event) => {
        event.preventDefault();
        save();
      }}
    >
      {items.length === 0 ? (
        <p>No steps: every run opens the target URL and ends.</p>
      ) : (
        <ol class="steps step-list">
          {items.map((item, index) => {
            const number = index + 1;
            const errors = { ...stepErrorsOf(apiErrors, index), ...localErrors[item.key] };
            const isOpen = open.has(item.key);
            // Not `-fields`: the inputs of StepFields are `step-<key>-<field name>`, and extract has a `fields`.
            const fieldsId = `step-${item.key}-panel`;
            return (
              <li key={item.key} class={Object.keys(errors).length > 0 ? 'step-item has-error' : 'step-item'}>
                <div class="step-head">
                  <code class="wrap">{lineOf(item, credentialName)}</code>
                  <div class="step-controls">
                    <button
                      type="button"
                      id={`step-${item.key}-edit`}
                      class="secondary"
                      aria-expanded={isOpen}
                      aria-controls={isOpen ? fieldsId : undefined}
                      aria-label={`${isOpen ? 'Close' : 'Edit'} step ${number}`}
                      onClick={() => toggle(item.key, !isOpen)}
                    >
                      {isOpen ? 'Close' : 'Edit'}
                    </button>
                    {index > 0 && (
                      <button
                        type="button"
                        id={`step-${item.key}-up`}
                        class="secondary"
                        aria-label={`Move step ${number} up`}
                        onClick={() => move(index, -1)}
                      >
                        Up
                      </button>
                    )}
                    {index < items.length - 1 && (
                      <button
                        type="button"
                        id={`step-${item.key}-down`}
                        class="secondary"
                        aria-label={`Move step ${number} down`}
                        onClick={() => move(index, 1)}
                      >
                        Down
                      </button>
                    )}
                    <button
                      type="button"
                      class="secondary"
                      aria-label={`Delete step ${number}`}
                      onClick={() => remove(index)}
                    >
                      Delete
                    </button>
                  </div>
                </div>
                {isOpen && (
                  <div id={fieldsId}>
                    <StepFields
                      id={`step-${item.key}`}
                      stepNumber={number}
                      draft={draftOfItem(item)}
                      errors={errors}
                      credentials={credentials}
                      onAction={(action) => edit(item.key, (draft) => withAction(draft, action))}
                      onField={(name, value) =>
                        edit(item.key, (draft) => ({ ...draft, fields: { ...draft.fields, [name]: value } }))
                      }
                    />
                  </div>
                )}
              </li>
            );
          })}
        </ol>
      )}
      <div class="add-step">
        <div class="field">
          <label for="new-step-action">New step’s action</label>
          <select id="new-step-action" value={newAction} onChange={(event) => setNewAction(event.currentTarget.value)}>
            {STEP_ACTIONS.map(({ action }) => (
              <option key={action} value={action}>
                {action}
              </option>
            ))}
          </select>
        </div>
        <button type="button" class="secondary" onClick={add}>
          Add a step
        </button>
      </div>
      <div class="actions">
        <button type="submit" disabled={saving.busy || !dirty}>
          {saving.busy ? 'Saving…' : 'Save steps'}
        </button>
        {dirty && (
          <button type="button" class="secondary" disabled={saving.busy} onClick={discard}>
            Discard changes
          </button>
        )}
        <span role="status">{status}</span>
      </div>
      <ErrorAlert error={saving.error} />
    </form>
  );
}
