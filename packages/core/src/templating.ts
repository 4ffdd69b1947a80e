const PLACEHOLDER = /\{\{\s*params\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** Names of the `{{params.<name>}}` placeholders a string uses. */
export function placeholderNames(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => m[1]!);
}

/**
 * Fills `{{params.<name>}}` placeholders. A missing param becomes an empty string, as in most
 * template engines; trigger validation already refused missing required params.
 */
export function fillTemplate(text: string, params: Record<string, unknown>): string {
  return text.replace(PLACEHOLDER, (_whole, name: string) => {
    const value = Object.prototype.hasOwnProperty.call(params, name) ? params[name] : undefined;
    return value === undefined || value === null ? '' : String(value);
  });
}

/** Applies fillTemplate to every string inside a JSON-like value (objects, arrays). */
export function fillTemplates<T>(value: T, params: Record<string, unknown>): T {
  if (typeof value === 'string') return fillTemplate(value, params) as T;
  if (Array.isArray(value)) return value.map((v) => fillTemplates(v, params)) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = fillTemplates(v, params);
    return out as T;
  }
  return value;
}
