/**
 * Reads a dot-notation path (`items.0.name`) from a JSON value. Numeric segments index arrays.
 * A path that does not resolve gives `null` (the webhook contract delivers null then).
 */
export function selectDataPath(data: unknown, path: string | undefined | null): unknown {
  if (!path) return data;
  let current: unknown = data;
  for (const segment of path.split('.')) {
    if (Array.isArray(current)) {
      if (!/^\d+$/.test(segment)) return null;
      current = current[Number(segment)];
    } else if (current !== null && typeof current === 'object') {
      // Own properties only: a path must never reach Object.prototype.
      if (!Object.prototype.hasOwnProperty.call(current, segment)) return null;
      current = (current as Record<string, unknown>)[segment];
    } else {
      return null;
    }
    if (current === undefined) return null;
  }
  return current;
}

export const DATA_PATH_PATTERN = /^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/;

/**
 * The webhook body: the extracted data narrowed by `dataPath`, as the exact JSON string that is
 * signed and sent. Nothing to deliver (no data, or a path that does not resolve) is `null`.
 */
export function buildDeliveryBody(extractedData: unknown, dataPath?: string | null): string {
  const selected = selectDataPath(extractedData, dataPath);
  return JSON.stringify(selected === undefined ? null : selected);
}
