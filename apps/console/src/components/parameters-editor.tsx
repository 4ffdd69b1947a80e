import { useEffect, useRef, useState } from 'preact/hooks';
import type { Parameter } from '../params';
import { manifestFieldId, useManifestSave } from '../use-manifest-save';
import { ErrorAlert } from './error-alert';
import { TextField } from './text-field';

type ParameterType = Parameter['type'];

const TYPE_LABELS: Record<ParameterType, string> = {
  string: 'text (string)',
  number: 'number',
  integer: 'whole number (integer)',
  boolean: 'yes/no (boolean)',
};

const isParameterType = (value: string): value is ParameterType => value in TYPE_LABELS;

/** A parameter as edited; `key` stays with it through moves, so its inputs move with it. */
interface Row {
  key: number;
  name: string;
  type: ParameterType;
  required: boolean;
  description: string;
}

const toParameter = (row: Row): Parameter => ({
  name: row.name.trim(),
  type: row.type,
  required: row.required,
  ...(row.description.trim() ? { description: row.description.trim() } : {}),
});

/**
 * The typed inputs runs take (an action bot's parameters): add, edit, reorder and delete, then
 * saved as the manifest's `parameters` section alone. The API's messages name a parameter by
 * its place in the list as sent (`parameters.1.name`), so they are shown until the list is
 * reordered or a row added or deleted.
 */
export function ParametersEditor({
  botId,
  parameters,
  onSaved,
}: {
  botId: string;
  parameters: Parameter[];
  onSaved(): void;
}) {
  const nextKey = useRef(0);
  const rowsOf = (list: readonly Parameter[]): Row[] =>
    list.map((parameter) => ({
      key: nextKey.current++,
      name: parameter.name,
      type: parameter.type,
      required: parameter.required,
      description: parameter.description ?? '',
    }));
  const [rows, setRows] = useState(() => rowsOf(parameters));
  const section = useManifestSave(botId, onSaved);
  // After a move, an add or a delete, focus goes here (the moved row's button, the new row's
  // name): a keyed move re-inserts the row's elements, which drops the focus otherwise.
  const focusNext = useRef<string | null>(null);
  useEffect(() => {
    if (focusNext.current === null) return;
    document.getElementById(focusNext.current)?.focus();
    focusNext.current = null;
  });

  const edit = (key: number, change: Partial<Row>) => {
    setRows((old) => old.map((row) => (row.key === key ? { ...row, ...change } : row)));
    section.edited();
  };
  /** The list changes shape: the API's messages, by position, no longer point at the right rows. */
  const reshape = (next: Row[], focusId: string) => {
    setRows(next);
    section.refuse({});
    focusNext.current = focusId;
  };
  const move = (index: number, by: -1 | 1) => {
    const next = [...rows];
    const [row] = next.splice(index, 1);
    if (!row) return;
    const to = index + by;
    next.splice(to, 0, row);
    // At either end the button that moved it is disabled: its other one takes the focus.
    const atEnd = by === -1 ? to === 0 : to === next.length - 1;
    const [same, other] = by === -1 ? ['up', 'down'] : ['down', 'up'];
    reshape(next, `parameter-row-${row.key}-${atEnd ? other : same}`);
  };
  const remove = (index: number) => {
    const next = rows.filter((_, i) => i !== index);
    const neighbour = next[index] ?? next[index - 1];
    reshape(next, neighbour ? `parameter-row-${neighbour.key}-delete` : 'parameter-add');
  };

  return (
    <form
      class="form"
      aria-labelledby="parameters-heading"
      // The API is the one judge of values (its messages appear at the fields), not the browser.
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        section.save({ parameters: rows.map(toParameter) }, (manifest) => setRows(rowsOf(manifest.parameters)));
      }}
    >
      {rows.length === 0 && <p>No parameters: runs take none.</p>}
      <ol class="parameter-rows">
        {rows.map((row, index) => {
          const at = (field: string) => section.field(`parameters.${index}.${field}`);
          return (
            <li key={row.key}>
              <fieldset>
                <legend>Parameter {index + 1}</legend>
                <TextField
                  {...at('name')}
                  label="Name"
                  hint="Letters, digits and _, not starting with a digit; unique."
                  spellcheck={false}
                  value={row.name}
                  onInput={(name) => edit(row.key, { name })}
                />
                <div class="field">
                  <label for={at('type').id}>Type</label>
                  <select
                    id={at('type').id}
                    value={row.type}
                    onChange={(event) => {
                      const type = event.currentTarget.value;
                      if (isParameterType(type)) edit(row.key, { type });
                    }}
                  >
                    {Object.entries(TYPE_LABELS).map(([value, label]) => (
                      <option key={value} value={value}>
                        {label}
                      </option>
                    ))}
                  </select>
                </div>
                <div class="field">
                  <label class="inline">
                    <input
                      type="checkbox"
                      id={at('required').id}
                      checked={row.required}
                      onChange={(event) => edit(row.key, { required: event.currentTarget.checked })}
                    />{' '}
                    Required: a run without it is refused
                  </label>
                </div>
                <TextField
                  {...at('description')}
                  label="Description (optional)"
                  maxLength={1000}
                  value={row.description}
                  onInput={(description) => edit(row.key, { description })}
                />
                <div class="actions">
                  <button
                    type="button"
                    class="secondary"
                    id={`parameter-row-${row.key}-up`}
                    disabled={index === 0}
                    onClick={() => move(index, -1)}
                  >
                    Move up
                  </button>
                  <button
                    type="button"
                    class="secondary"
                    id={`parameter-row-${row.key}-down`}
                    disabled={index === rows.length - 1}
                    onClick={() => move(index, 1)}
                  >
                    Move down
                  </button>
                  <button
                    type="button"
                    class="danger"
                    id={`parameter-row-${row.key}-delete`}
                    onClick={() => remove(index)}
                  >
                    Delete
                  </button>
                </div>
              </fieldset>
            </li>
          );
        })}
      </ol>
      <div class="actions">
        <button
          type="button"
          class="secondary"
          id="parameter-add"
          onClick={() => {
            const row: Row = { key: nextKey.current++, name: '', type: 'string', required: false, description: '' };
            reshape([...rows, row], manifestFieldId(`parameters.${rows.length}.name`));
          }}
        >
          Add a parameter
        </button>
        <button type="submit" disabled={section.busy}>
          {section.busy ? 'Saving…' : 'Save parameters'}
        </button>
        {section.saved && <span role="status">Saved.</span>}
      </div>
      <ErrorAlert error={section.error} />
    </form>
  );
}
