import type { Credential } from '@botfleet/sdk';
import type { ComponentChildren } from 'preact';
import { ATTACH_LOGIN_NOTICE } from '../api-errors';
import { useSession } from '../console-session';
import { hrefOf } from '../routes';
import { emptySelector, type FieldDraft, type SelectorDraft, type StepDraft, type ValueDraft } from '../step-draft';
import { actionSpecOf, STEP_ACTIONS, type StepFieldSpec } from '../step-schema';
import { Link } from './link';

interface StepFieldsProps {
  /** Prefix of the input ids, unique on the page. */
  id: string;
  /** 1-based, as people count steps. */
  stepNumber: number;
  draft: StepDraft;
  /** Messages by path inside the step (`selector.0`), the API's and the editor's own; '' is the step's. */
  errors: Readonly<Record<string, string>>;
  /** Undefined while they load. */
  credentials: Credential[] | undefined;
  onAction(action: string): void;
  onField(name: string, value: FieldDraft): void;
}

/** The fields a credential can give: the API refuses a step bound to one it does not have. */
function fieldsOf(credential: Credential): string[] {
  const fields: string[] = [];
  if (credential.username !== null) fields.push('username');
  if (credential.hasPassword) fields.push('password');
  if (credential.hasTotp) fields.push('totp');
  return fields;
}

/** The messages at paths under `name` that no input of it shows (`fields.price` of a JSON field). */
function messagesUnder(errors: Readonly<Record<string, string>>, name: string, shown: ReadonlySet<string>): string[] {
  return Object.entries(errors)
    .filter(([path]) => (path === name || path.startsWith(`${name}.`)) && !shown.has(path))
    .map(([path, message]) => (path === name ? message : `${path}: ${message}`));
}

/** The editor's fields of one step: its action, then each field that action has, as the API describes it. */
export function StepFields({ id, stepNumber, draft, errors, credentials, onAction, onField }: StepFieldsProps) {
  const spec = actionSpecOf(draft.action);
  const fieldNames = new Set(spec?.fields.map((field) => field.name));
  // What the API says of the step itself, or of a field this form has no input for.
  const stepMessages = Object.entries(errors)
    .filter(([path]) => path === '' || (path !== 'action' && !fieldNames.has(path.split('.')[0] ?? '')))
    .map(([path, message]) => (path === '' ? message : `${path}: ${message}`));
  return (
    <fieldset class="step-fields">
      <legend>Step {stepNumber}</legend>
      {stepMessages.map((message) => (
        <p key={message} class="field-error">
          {message}
        </p>
      ))}
      <div class="field">
        <label for={`${id}-action`}>action</label>
        <select
          id={`${id}-action`}
          value={draft.action}
          aria-invalid={errors.action ? true : undefined}
          onChange={(event) => onAction(event.currentTarget.value)}
        >
          {!spec && <option value={draft.action}>{draft.action}</option>}
          {STEP_ACTIONS.map(({ action }) => (
            <option key={action} value={action}>
              {action}
            </option>
          ))}
        </select>
        {errors.action && <p class="field-error">{errors.action}</p>}
      </div>
      {spec?.fields.map((field) => (
        <StepField
          key={field.name}
          id={`${id}-${field.name}`}
          spec={field}
          value={draft.fields[field.name] ?? ''}
          errors={errors}
          credentials={credentials}
          onChange={(value) => onField(field.name, value)}
        />
      ))}
    </fieldset>
  );
}

interface StepFieldProps {
  id: string;
  spec: StepFieldSpec;
  value: FieldDraft;
  errors: Readonly<Record<string, string>>;
  credentials: Credential[] | undefined;
  onChange(value: FieldDraft): void;
}

/** A hint from the schema: what the field is, that it is required, and its bounds. */
function hintOf(spec: StepFieldSpec): string {
  const parts: string[] = [];
  if (spec.required) parts.push('Required.');
  if (spec.description) parts.push(spec.description.endsWith('.') ? spec.description : `${spec.description}.`);
  if (spec.kind === 'number') {
    const range =
      spec.minimum !== undefined && spec.maximum !== undefined
        ? ` from ${spec.minimum} to ${spec.maximum}`
        : spec.minimum !== undefined
          ? ` of at least ${spec.minimum}`
          : '';
    parts.push(`${spec.integer ? 'A whole number' : 'A number'}${range}.`);
  }
  if (spec.kind === 'numbers') parts.push('Whole numbers separated by commas.');
  if (spec.kind === 'json') parts.push('JSON.');
  return parts.join(' ');
}

/** A labelled control with its hint and messages, each tied to it by aria-describedby. */
function Labelled({
  id,
  label,
  hint,
  messages,
  children,
}: {
  id: string;
  label: string;
  hint: string;
  messages: string[];
  children(described: { 'aria-describedby'?: string; 'aria-invalid'?: true }): ComponentChildren;
}) {
  const ids = [hint ? `${id}-hint` : '', messages.length > 0 ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children({
        ...(ids ? { 'aria-describedby': ids } : {}),
        ...(messages.length > 0 ? { 'aria-invalid': true as const } : {}),
      })}
      {hint && (
        <p id={`${id}-hint`} class="hint">
          {hint}
        </p>
      )}
      {messages.length > 0 && (
        <p id={`${id}-error`} class="field-error">
          {messages.join(' ')}
        </p>
      )}
    </div>
  );
}

function StepField({ id, spec, value, errors, credentials, onChange }: StepFieldProps) {
  if (spec.kind === 'selector' && typeof value !== 'string' && 'alternatives' in value) {
    return <SelectorField id={id} spec={spec} value={value} errors={errors} onChange={onChange} />;
  }
  if (spec.kind === 'textOrCredential' && typeof value !== 'string' && 'from' in value) {
    return (
      <ValueField
        id={id}
        spec={spec}
        credentialFields={spec.credentialFields}
        value={value}
        errors={errors}
        credentials={credentials}
        onChange={onChange}
      />
    );
  }
  const text = typeof value === 'string' ? value : '';
  const messages = messagesUnder(errors, spec.name, new Set());
  return (
    <Labelled id={id} label={spec.name} hint={hintOf(spec)} messages={messages}>
      {(described) => {
        switch (spec.kind) {
          case 'choice':
          case 'boolean': {
            const options = spec.kind === 'choice' ? spec.options : ['true', 'false'];
            return (
              <select id={id} value={text} {...described} onChange={(event) => onChange(event.currentTarget.value)}>
                <option value="">not set</option>
                {options.map((option) => (
                  <option key={option} value={option}>
                    {option}
                  </option>
                ))}
              </select>
            );
          }
          case 'number':
            return (
              <input
                id={id}
                type="number"
                step={spec.integer ? 1 : 'any'}
                value={text}
                {...described}
                onInput={(event) => onChange(event.currentTarget.value)}
              />
            );
          case 'json':
            return (
              <textarea
                id={id}
                rows={3}
                spellcheck={false}
                value={text}
                {...described}
                onInput={(event) => onChange(event.currentTarget.value)}
              />
            );
          default:
            return (
              <input
                id={id}
                type="text"
                spellcheck={false}
                value={text}
                {...described}
                onInput={(event) => onChange(event.currentTarget.value)}
              />
            );
        }
      }}
    </Labelled>
  );
}

interface SelectorFieldProps {
  id: string;
  spec: StepFieldSpec;
  value: SelectorDraft;
  errors: Readonly<Record<string, string>>;
  onChange(value: SelectorDraft): void;
}

/**
 * A selector as alternatives tried in order, each one input, or several for a chain (each part
 * looked up inside the element the part before found). One alternative is sent as one selector.
 */
function SelectorField({ id, spec, value, errors, onChange }: SelectorFieldProps) {
  const { alternatives } = value;
  const single = alternatives.length === 1;
  const path = (a: number, p: number) => {
    // The API's paths: `selector` for a single one, `selector.1` for an alternative, `selector.1.0` for a part.
    const alternative = alternatives[a];
    if (!value.list && single && alternative && !alternative.chain && alternative.parts.length === 1) return spec.name;
    return alternative && (alternative.chain || alternative.parts.length > 1)
      ? `${spec.name}.${a}.${p}`
      : `${spec.name}.${a}`;
  };
  const shown = new Set(alternatives.flatMap((alternative, a) => alternative.parts.map((_, p) => path(a, p))));
  const rest = messagesUnder(errors, spec.name, shown);
  const set = (a: number, parts: string[], chain?: boolean) =>
    onChange({
      ...value,
      alternatives: alternatives.map((alternative, i) =>
        i === a ? { parts, chain: chain ?? alternative.chain } : alternative,
      ),
    });
  const hint = hintOf(spec);
  return (
    <fieldset class="selector-field" aria-describedby={hint ? `${id}-hint` : undefined}>
      <legend>{spec.name}</legend>
      {hint && (
        <p id={`${id}-hint`} class="hint">
          {hint}
        </p>
      )}
      {rest.length > 0 && <p class="field-error">{rest.join(' ')}</p>}
      <ol class="selector-alternatives">
        {alternatives.map((alternative, a) => (
          <li key={a}>
            {alternative.parts.map((part, p) => {
              const inputId = `${id}-${a}-${p}`;
              const message = errors[path(a, p)];
              const label = single ? 'Selector' : `Alternative ${a + 1}`;
              return (
                <div class="field" key={p}>
                  <label for={inputId}>
                    {alternative.parts.length > 1
                      ? `${label}, part ${p + 1}${p > 0 ? ` (inside part ${p})` : ''}`
                      : label}
                  </label>
                  <div class="input-row">
                    <input
                      id={inputId}
                      type="text"
                      spellcheck={false}
                      value={part}
                      aria-invalid={message ? true : undefined}
                      aria-describedby={message ? `${inputId}-error` : undefined}
                      onInput={(event) =>
                        set(
                          a,
                          alternative.parts.map((old, i) => (i === p ? event.currentTarget.value : old)),
                        )
                      }
                    />
                    {alternative.parts.length > 1 && (
                      <button
                        type="button"
                        class="secondary"
                        onClick={() =>
                          set(
                            a,
                            alternative.parts.filter((_, i) => i !== p),
                          )
                        }
                      >
                        Remove part {p + 1}
                        {single ? '' : ` of alternative ${a + 1}`}
                      </button>
                    )}
                  </div>
                  {message && (
                    <p id={`${inputId}-error`} class="field-error">
                      {message}
                    </p>
                  )}
                </div>
              );
            })}
            <div class="actions">
              <button type="button" class="link-button" onClick={() => set(a, [...alternative.parts, ''], true)}>
                Chain a selector inside it{single ? '' : ` (alternative ${a + 1})`}
              </button>
              {!single && (
                <button
                  type="button"
                  class="link-button"
                  onClick={() => onChange({ ...value, alternatives: alternatives.filter((_, i) => i !== a) })}
                >
                  Remove alternative {a + 1}
                </button>
              )}
            </div>
          </li>
        ))}
      </ol>
      <button
        type="button"
        class="secondary"
        onClick={() =>
          onChange({
            list: true,
            alternatives: [
              ...(alternatives.length > 0 ? alternatives : emptySelector().alternatives),
              {
                parts: [''],
                chain: false,
              },
            ],
          })
        }
      >
        Add an alternative
      </button>
    </fieldset>
  );
}

interface ValueFieldProps {
  id: string;
  spec: StepFieldSpec;
  credentialFields: readonly string[];
  value: ValueDraft;
  errors: Readonly<Record<string, string>>;
  credentials: Credential[] | undefined;
  onChange(value: ValueDraft): void;
}

/**
 * A fill step's value: text to type, or a credential's field, so the step never holds the secret.
 * A credential is a saved login, which only an admin key gives a bot (docs/sessions.md): a write
 * key edits such a bot's steps only while none uses one, so it is offered text alone.
 */
function ValueField({ id, spec, credentialFields, value, errors, credentials, onChange }: ValueFieldProps) {
  const { isAdmin } = useSession();
  const messages = messagesUnder(errors, spec.name, new Set());
  const usable = (credentials ?? []).filter((credential) => fieldsOf(credential).length > 0);
  const hint = hintOf(spec);
  const errorId = messages.length > 0 ? `${id}-error` : undefined;
  const fromCredential = (credential: Credential | undefined, field?: string): ValueDraft => {
    const fields = credential ? fieldsOf(credential).filter((name) => credentialFields.includes(name)) : [];
    return {
      from: 'credential',
      credential: credential?.id ?? '',
      field: field !== undefined && fields.includes(field) ? field : (fields[0] ?? ''),
    };
  };
  const chosen = value.from === 'credential' ? credentials?.find((c) => c.id === value.credential) : undefined;
  return (
    <fieldset class="value-field" aria-describedby={hint ? `${id}-hint` : undefined}>
      <legend>{spec.name}</legend>
      {hint && (
        <p id={`${id}-hint`} class="hint">
          {hint}
        </p>
      )}
      {isAdmin ? (
        <>
          <label class="inline">
            <input
              type="radio"
              name={`${id}-from`}
              checked={value.from === 'text'}
              onChange={() => onChange({ from: 'text', text: '' })}
            />{' '}
            Text
          </label>
          <label class="inline">
            <input
              type="radio"
              name={`${id}-from`}
              checked={value.from === 'credential'}
              onChange={() => onChange(fromCredential(usable[0]))}
            />{' '}
            A credential’s field
          </label>
        </>
      ) : (
        <p class="hint">{ATTACH_LOGIN_NOTICE}</p>
      )}
      {value.from === 'text' ? (
        <div class="field">
          <label for={`${id}-text`}>Text to fill</label>
          <input
            id={`${id}-text`}
            type="text"
            spellcheck={false}
            value={value.text}
            aria-invalid={errorId ? true : undefined}
            aria-describedby={errorId}
            onInput={(event) => onChange({ from: 'text', text: event.currentTarget.value })}
          />
        </div>
      ) : credentials === undefined ? (
        <p aria-live="polite">Loading credentials…</p>
      ) : usable.length === 0 && !value.credential ? (
        <p class="hint">
          No credential to use yet: create one on the{' '}
          <Link href={hrefOf({ page: 'credentials' })}>Credentials page</Link>.
        </p>
      ) : (
        <>
          <div class="field">
            <label for={`${id}-credential`}>Credential</label>
            <select
              id={`${id}-credential`}
              value={value.credential}
              aria-invalid={errorId ? true : undefined}
              aria-describedby={errorId}
              onChange={(event) =>
                onChange(
                  fromCredential(
                    usable.find((credential) => credential.id === event.currentTarget.value),
                    value.field,
                  ),
                )
              }
            >
              {/* A credential this key cannot list (deleted since) stays what the step names. */}
              {!chosen && <option value={value.credential}>{value.credential || 'none'}</option>}
              {usable.map((credential) => (
                <option key={credential.id} value={credential.id}>
                  {credential.name}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for={`${id}-field`}>Field</label>
            <select
              id={`${id}-field`}
              value={value.field}
              onChange={(event) => onChange({ ...value, field: event.currentTarget.value })}
            >
              {(chosen ? fieldsOf(chosen).filter((name) => credentialFields.includes(name)) : [value.field]).map(
                (name) => (
                  <option key={name} value={name}>
                    {name}
                  </option>
                ),
              )}
            </select>
          </div>
        </>
      )}
      {errorId && (
        <p id={errorId} class="field-error">
          {messages.join(' ')}
        </p>
      )}
    </fieldset>
  );
}
