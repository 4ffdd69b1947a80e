import type { ScriptHelper } from '@botfleet/core';

/** Same pattern as fillTemplate in @botfleet/core (templating.ts). */
const PLACEHOLDER = /\{\{\s*params\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/**
 * A JavaScript expression for a step's string field. Literal parts are JSON string literals
 * (safe for any quote, backtick, `${`, backslash, newline or `*\/`); each `{{params.x}}` becomes
 * `text(params.x)`, which, like fillTemplate, turns a missing or null param into ''.
 */
export function templateExpression(template: string): { code: string; usesParams: boolean } {
  const parts: string[] = [];
  let last = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    const start = match.index;
    if (start > last) parts.push(JSON.stringify(template.slice(last, start)));
    parts.push(`text(${paramReference(match[1]!)})`);
    last = start + match[0].length;
  }
  if (last < template.length || parts.length === 0) parts.push(JSON.stringify(template.slice(last)));
  return { code: parts.join(' + '), usesParams: last > 0 };
}

/**
 * `params.x`, except for names every object inherits (toString, constructor, __proto__...):
 * fillTemplate reads own properties only, so those must not pick up Object.prototype.
 */
function paramReference(name: string): string {
  if (!(name in Object.prototype)) return `params.${name}`;
  const key = JSON.stringify(name);
  return `(Object.hasOwn(params, ${key}) ? params[${key}] : undefined)`;
}

/** What every `text(...)` in a generated script calls. */
export const TEXT_HELPER: ScriptHelper = {
  name: 'text',
  source: `// Fills a {{params.x}} placeholder: a missing or null param becomes '' (as when steps run).
function text(value) {
  return value === undefined || value === null ? '' : String(value);
}`,
};
