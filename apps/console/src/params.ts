import type { Manifest } from '@botfleet/sdk';

export type Parameter = Manifest['parameters'][number];
/** What the trigger form holds: text for typed inputs, a flag for checkboxes. */
export type FieldValue = string | boolean;

export interface ExtraParam {
  name: string;
  value: string;
}

export interface BuiltParams {
  params: Record<string, unknown>;
  /** Field name -> why its value cannot be sent. */
  errors: Record<string, string>;
}

/**
 * The `params` of a trigger from the form: values take the type the manifest declares; an empty
 * optional field is left out. Extra names (not in the manifest) are sent as text, and the API
 * answers `unknown_parameter` with its suggestion, which the form shows beside the field.
 */
export function buildParams(
  parameters: readonly Parameter[],
  values: Readonly<Record<string, FieldValue>>,
  extras: readonly ExtraParam[] = [],
): BuiltParams {
  const params: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const parameter of parameters) {
    const raw = values[parameter.name];
    if (parameter.type === 'boolean') {
      if (raw === true || raw === false) params[parameter.name] = raw;
      continue;
    }
    const text = typeof raw === 'string' ? raw.trim() : '';
    if (text === '') {
      if (parameter.required) errors[parameter.name] = 'Required';
      continue;
    }
    if (parameter.type === 'string') {
      params[parameter.name] = typeof raw === 'string' ? raw : text;
      continue;
    }
    const number = Number(text);
    if (!Number.isFinite(number)) errors[parameter.name] = 'Must be a number';
    else if (parameter.type === 'integer' && !Number.isInteger(number))
      errors[parameter.name] = 'Must be a whole number';
    else params[parameter.name] = number;
  }
  for (const extra of extras) {
    const name = extra.name.trim();
    if (name !== '') params[name] = extra.value;
  }
  return { params, errors };
}
