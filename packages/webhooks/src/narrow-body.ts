import { selectDataPath } from '@botfleet/core';

/**
 * The webhook body: the extracted data narrowed by `dataPath`, as the exact JSON string that is
 * signed and sent. Nothing to deliver (no data, or a path that does not resolve) is `null`.
 */
export function buildDeliveryBody(extractedData: unknown, dataPath?: string | null): string {
  const selected = selectDataPath(extractedData, dataPath);
  return JSON.stringify(selected === undefined ? null : selected);
}
