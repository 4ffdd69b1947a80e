import leven from 'leven';
import { AppError } from '../errors';
import type { ParameterDefinition, ParameterType } from './manifest';

function closestName(given: string, names: string[]): string | null {
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const name of names) {
    const distance = leven(given, name);
    if (distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  return best;
}

function hasType(value: unknown, type: ParameterType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
  }
}

/**
 * Checks trigger params against the manifest's parameter definitions: unknown names first
 * (with the closest defined name by Levenshtein distance), then missing required ones and types.
 */
export function validateParams(definitions: ParameterDefinition[], params: Record<string, unknown>): void {
  const names = definitions.map((d) => d.name);
  for (const given of Object.keys(params)) {
    if (names.includes(given)) continue;
    const suggestion = closestName(given, names);
    const message = suggestion
      ? `Unknown parameter '${given}'. Did you mean '${suggestion}'?`
      : `Unknown parameter '${given}'.`;
    throw new AppError('unknown_parameter', message, { parameter: given, suggestion });
  }
  const problems: { path: string; message: string }[] = [];
  for (const def of definitions) {
    const present = Object.prototype.hasOwnProperty.call(params, def.name) && params[def.name] !== undefined;
    if (!present) {
      if (def.required) problems.push({ path: `params.${def.name}`, message: 'is required' });
      continue;
    }
    if (!hasType(params[def.name], def.type)) {
      problems.push({ path: `params.${def.name}`, message: `must be of type ${def.type}` });
    }
  }
  if (problems.length > 0) {
    throw new AppError('invalid_parameter', problems.map((p) => `${p.path} ${p.message}`).join('; '), problems);
  }
}
