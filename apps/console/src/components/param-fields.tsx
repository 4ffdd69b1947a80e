import type { FieldValue, Parameter } from '../params';

interface ParamFieldsProps {
  /** Prefix of the input ids, so two forms on one page do not share ids. */
  idPrefix: string;
  parameters: readonly Parameter[];
  values: Readonly<Record<string, FieldValue>>;
  errors: Readonly<Record<string, string>>;
  onChange(name: string, value: FieldValue): void;
}

const textOf = (value: FieldValue | undefined) => (typeof value === 'string' ? value : '');

/** One input per manifest parameter, typed as declared; required ones marked and enforced. */
export function ParamFields({ idPrefix, parameters, values, errors, onChange }: ParamFieldsProps) {
  return (
    <>
      {parameters.map((parameter) => {
        const id = `${idPrefix}-${parameter.name}`;
        const hintId = `${id}-hint`;
        const errorId = `${id}-error`;
        const described = [parameter.description ? hintId : '', errors[parameter.name] ? errorId : '']
          .filter(Boolean)
          .join(' ');
        const hint = parameter.description && (
          <p id={hintId} class="hint">
            {parameter.description}
          </p>
        );
        const error = errors[parameter.name] && (
          <p id={errorId} class="field-error">
            {errors[parameter.name]}
          </p>
        );
        if (parameter.type === 'boolean') {
          return (
            <div class="field" key={parameter.name}>
              <label class="inline">
                <input
                  id={id}
                  type="checkbox"
                  checked={values[parameter.name] === true}
                  aria-describedby={described || undefined}
                  onChange={(event) => onChange(parameter.name, event.currentTarget.checked)}
                />{' '}
                {parameter.name}
              </label>
              {hint}
              {error}
            </div>
          );
        }
        const common = {
          id,
          required: parameter.required,
          'aria-invalid': errors[parameter.name] ? true : undefined,
          'aria-describedby': described || undefined,
          value: textOf(values[parameter.name]),
        };
        return (
          <div class="field" key={parameter.name}>
            <label for={id}>
              {parameter.name}{' '}
              <span class="hint">
                ({parameter.type}
                {parameter.required ? ', required' : ''})
              </span>
            </label>
            {parameter.type === 'string' ? (
              <input {...common} type="text" onInput={(event) => onChange(parameter.name, event.currentTarget.value)} />
            ) : (
              <input
                {...common}
                type="number"
                step={parameter.type === 'integer' ? 1 : 'any'}
                onInput={(event) => onChange(parameter.name, event.currentTarget.value)}
              />
            )}
            {hint}
            {error}
          </div>
        );
      })}
    </>
  );
}

/** Form values from stored params (a schedule's), as the inputs hold them. */
export function valuesOf(
  parameters: readonly Parameter[],
  params: Record<string, unknown>,
): Record<string, FieldValue> {
  const values: Record<string, FieldValue> = {};
  for (const parameter of parameters) {
    const value = params[parameter.name];
    if (parameter.type === 'boolean') values[parameter.name] = value === true;
    else if (value !== undefined && value !== null) values[parameter.name] = String(value);
  }
  return values;
}
