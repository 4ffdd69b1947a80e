import type { Manifest } from '@botfleet/sdk';
import { UsageError } from './usage-error';

type ParameterType = Manifest['parameters'][number]['type'];

/** `--params k=v` pairs (repeatable, or comma-free `k=v` each) into a map of strings. */
export function parseParamPairs(pairs: readonly string[]): Record<string, string> {
  const params: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--params takes key=value, not '${pair}'`);
    params[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return params;
}

function coerce(value: string, type: ParameterType | undefined): unknown {
  switch (type) {
    case 'number':
    case 'integer': {
      const number = Number(value);
      return value.trim() !== '' && Number.isFinite(number) ? number : value;
    }
    case 'boolean':
      return value === 'true' ? true : value === 'false' ? false : value;
    case 'string':
    case undefined:
      return value;
  }
}

/**
 * Gives each value the type the bot's manifest declares for it, since a command line only has
 * strings and the API checks types. A value that does not convert, or a name the manifest does
 * not declare, is sent as given so the API answers with its precise error (`invalid_parameter`,
 * `unknown_parameter` with a suggestion).
 */
export function typedParams(params: Record<string, string>, declared: Manifest['parameters']): Record<string, unknown> {
  const types = new Map(declared.map((parameter) => [parameter.name, parameter.type]));
  return Object.fromEntries(Object.entries(params).map(([name, value]) => [name, coerce(value, types.get(name))]));
}
