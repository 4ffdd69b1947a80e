import { REDACTED, type RunSecrets } from './run-secrets';

/*
 * What a run's network evidence (its HAR, its trace's network log) may not hold: the values of
 * the headers that carry a login (a password in `Authorization: Basic`, a session in `Cookie`
 * and `Set-Cookie`), and the body of a request that carried one of the run's secret values.
 * This applies to every run, holding registered secrets or not (docs/security.md): a page can
 * send a login of its own. The header stays, so a reader still sees that one was sent.
 */

/** Headers whose whole value is a credential or a session. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);

/** Whether a header's value is a credential (the one rule for HARs and traces). */
export function isCredentialHeader(name: string): boolean {
  return CREDENTIAL_HEADERS.has(name.toLowerCase());
}

type JsonObject = Record<string, unknown>;
const isObject = (value: unknown): value is JsonObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Every string in a JSON value, read as is (not JSON-escaped, as a value with a quote would be). */
const stringsIn = (value: unknown): string[] => {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  return isObject(value) ? Object.values(value).flatMap(stringsIn) : [];
};

/**
 * Scrubs one network entry in place: a HAR entry, or the `snapshot` of a trace's
 * `resource-snapshot` line (Playwright writes both in the HAR's shape). With `secrets`, a request
 * body that holds one of their values is replaced whole: a form's other fields (or a JSON body's)
 * belong to the same login.
 */
export function scrubNetworkEntry(entry: unknown, secrets?: RunSecrets): void {
  if (!isObject(entry)) return;
  for (const side of [entry.request, entry.response]) {
    if (!isObject(side)) continue;
    if (Array.isArray(side.headers)) {
      for (const header of side.headers) {
        if (isObject(header) && typeof header.name === 'string' && isCredentialHeader(header.name)) {
          header.value = REDACTED;
        }
      }
    }
    // The HAR's parsed Cookie and Set-Cookie headers.
    if (Array.isArray(side.cookies)) {
      for (const cookie of side.cookies) if (isObject(cookie)) cookie.value = REDACTED;
    }
  }
  const request = entry.request;
  if (secrets && isObject(request) && isObject(request.postData)) {
    if (stringsIn(request.postData).some((text) => secrets.containsSecret(text))) {
      const { mimeType } = request.postData;
      request.postData = { mimeType: typeof mimeType === 'string' ? mimeType : '', text: REDACTED, params: [] };
    }
  }
}

/**
 * A parsed HAR with every entry scrubbed (scrubNetworkEntry), then every secret value of the run
 * redacted wherever else it appears (a query string, a URL).
 */
export function scrubHar(har: unknown, secrets: RunSecrets): unknown {
  const entries = isObject(har) && isObject(har.log) ? har.log.entries : undefined;
  if (Array.isArray(entries)) for (const entry of entries) scrubNetworkEntry(entry, secrets);
  return secrets.redactData(har);
}
