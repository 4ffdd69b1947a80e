import type { Step } from '@botfleet/sdk';
import { actionSpecOf, type StepActionSpec, type StepFieldSpec } from './step-schema';

/*
 * A step as the editor holds it while a person changes it: each field as its inputs hold it (text
 * for numbers and JSON, so a half-typed value is kept as typed), turned back into a step on save.
 * Fields left empty are left out; the API judges the rest and names what it refuses by path
 * (`steps.3.selector.0`), which the editor shows at that field of that step.
 */

/** One alternative of a selector: a selector, or a chain (each part looked up inside the one before). */
export interface AlternativeDraft {
  parts: string[];
  /** Sent as a list even with one part, as a recording has it. */
  chain: boolean;
}

export interface SelectorDraft {
  alternatives: AlternativeDraft[];
  /** Sent as a list of alternatives even with one (a recording's selectors are; the runner treats them so). */
  list: boolean;
}

export type ValueDraft = { from: 'text'; text: string } | { from: 'credential'; credential: string; field: string };

/** Text for text, numbers, choices ('' unset), booleans ('' unset, 'true', 'false') and JSON. */
export type FieldDraft = string | SelectorDraft | ValueDraft;

export interface StepDraft {
  action: string;
  fields: Record<string, FieldDraft>;
}

export const emptySelector = (): SelectorDraft => ({ alternatives: [{ parts: [''], chain: false }], list: false });

function selectorDraftOf(value: unknown): SelectorDraft {
  if (typeof value === 'string') return { alternatives: [{ parts: [value], chain: false }], list: false };
  if (!Array.isArray(value) || value.length === 0) return emptySelector();
  return {
    list: true,
    alternatives: value.map((alternative: unknown) =>
      Array.isArray(alternative)
        ? { parts: alternative.map(String), chain: true }
        : { parts: [String(alternative)], chain: false },
    ),
  };
}

function fieldDraftOf(spec: StepFieldSpec, value: unknown): FieldDraft {
  switch (spec.kind) {
    case 'selector':
      return selectorDraftOf(value);
    case 'textOrCredential':
      if (value !== null && typeof value === 'object') {
        const { credential, field } = value as { credential?: unknown; field?: unknown };
        return { from: 'credential', credential: String(credential ?? ''), field: String(field ?? '') };
      }
      return { from: 'text', text: typeof value === 'string' ? value : '' };
    case 'numbers':
      return Array.isArray(value) ? value.join(', ') : '';
    case 'json':
      return value === undefined ? '' : JSON.stringify(value, null, 2);
    default:
      return value === undefined || value === null ? '' : String(value);
  }
}

/** The draft of a stored step (or of a new one: `{ action }`). */
export function draftOf(step: { readonly action: string }): StepDraft {
  const spec = actionSpecOf(step.action);
  const fields: Record<string, FieldDraft> = {};
  const values = step as Record<string, unknown>;
  for (const field of spec?.fields ?? []) fields[field.name] = fieldDraftOf(field, values[field.name]);
  return { action: step.action, fields };
}

/** The draft with another action: the fields both actions have keep their values. */
export function withAction(draft: StepDraft, action: string): StepDraft {
  const next = draftOf({ action });
  for (const name of Object.keys(next.fields)) {
    const kept = draft.fields[name];
    const spec = actionSpecOf(action)?.fields.find((field) => field.name === name);
    const before = actionSpecOf(draft.action)?.fields.find((field) => field.name === name);
    if (kept !== undefined && spec && before && spec.kind === before.kind) next.fields[name] = kept;
  }
  return next;
}

function selectorOf(draft: SelectorDraft, required: boolean): unknown {
  const alternatives = draft.alternatives.map(({ parts, chain }) =>
    chain || parts.length > 1 ? parts : (parts[0] ?? ''),
  );
  if (!draft.list && alternatives.length === 1 && typeof alternatives[0] === 'string') {
    return alternatives[0] === '' && !required ? undefined : alternatives[0];
  }
  return alternatives;
}

/** A field's value for the API, or an error of the editor's own (text that is no number, no JSON). */
function fieldValueOf(spec: StepFieldSpec, draft: FieldDraft): { value?: unknown; error?: string } {
  if (typeof draft !== 'string') {
    if ('alternatives' in draft) return { value: selectorOf(draft, spec.required) };
    return { value: draft.from === 'text' ? draft.text : { credential: draft.credential, field: draft.field } };
  }
  const text = draft.trim();
  // Empty is "not set"; a required text is sent as typed (a fill may type nothing), the API judges it.
  if (text === '') return { value: spec.kind === 'text' && spec.required ? draft : undefined };
  switch (spec.kind) {
    case 'number': {
      const value = Number(text);
      return Number.isFinite(value) ? { value } : { error: 'must be a number' };
    }
    case 'boolean':
      return { value: text === 'true' };
    case 'numbers': {
      const values = text.split(/[\s,]+/).map(Number);
      return values.every(Number.isInteger)
        ? { value: values }
        : { error: 'must be whole numbers separated by commas' };
    }
    case 'json':
      try {
        return { value: JSON.parse(text) as unknown };
      } catch {
        return { error: 'must be JSON' };
      }
    default:
      return { value: draft };
  }
}

/**
 * The step to send, and the editor's own complaints by field name: a step with any is not sent.
 * The API validates the step itself.
 */
export function stepOf(draft: StepDraft): { step: Step; errors: Record<string, string> } {
  const spec: StepActionSpec | undefined = actionSpecOf(draft.action);
  const step: Record<string, unknown> = { action: draft.action };
  const errors: Record<string, string> = {};
  for (const field of spec?.fields ?? []) {
    const held = draft.fields[field.name];
    if (held === undefined) continue;
    const { value, error } = fieldValueOf(field, held);
    if (error !== undefined) errors[field.name] = error;
    else if (value !== undefined) step[field.name] = value;
  }
  // The API checks the fields of each action; the console sends what the person wrote.
  return { step: step as unknown as Step, errors };
}

/**
 * The API's messages about one step (`steps.<index>.…`), by the path inside the step ('' for the
 * step itself): `selector.0` is the first alternative of its selector.
 */
export function stepErrorsOf(fieldErrors: Readonly<Record<string, string>>, index: number): Record<string, string> {
  const prefix = `steps.${index}`;
  const errors: Record<string, string> = {};
  for (const [path, message] of Object.entries(fieldErrors)) {
    if (path === prefix) errors[''] = message;
    else if (path.startsWith(`${prefix}.`)) errors[path.slice(prefix.length + 1)] = message;
  }
  return errors;
}
