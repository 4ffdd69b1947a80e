import { createClient, createConfig, type Client } from './generated/client';
import { toBotfleetError } from './api-error';

export interface BotfleetClientOptions {
  /** Where the API is, without /api/v1 (e.g. `http://localhost:3000`). */
  baseUrl: string;
  /** An API key (`bf_...`), sent as `Authorization: Bearer`. */
  apiKey: string;
  /** Replaces the global fetch (tests, proxies, retries). */
  fetch?: typeof fetch;
}

/**
 * A client for one botfleet API and key, passed to each call: `listBots({ client, throwOnError:
 * true })`. With `throwOnError: true` a call resolves to `{ data, response }` or throws a
 * BotfleetApiError (the API answered an error) or a BotfleetNetworkError (it could not be reached).
 */
export function createBotfleetClient(options: BotfleetClientOptions): Client {
  const client = createClient(
    createConfig({
      baseUrl: `${options.baseUrl.replace(/\/+$/, '')}/api/v1`,
      auth: options.apiKey,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    }),
  );
  client.interceptors.error.use((error, response) => toBotfleetError(error, response));
  return client;
}
