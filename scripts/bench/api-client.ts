import type { StepInput } from '@botfleet/core';

/** The few public API calls the bench makes, over real HTTP on loopback. */
export interface BenchApiClient {
  readonly baseUrl: string;
  readonly authHeader: string;
  /** Creates an extraction bot with these steps (and manifest capabilities, when given). */
  createBot(input: {
    name: string;
    targetUrl: string;
    steps: StepInput[];
    capabilities?: Record<string, unknown>;
  }): Promise<string>;
  /** Triggers a run; returns the execution id. */
  trigger(botId: string): Promise<string>;
  getExecution(executionId: string): Promise<{ status: string; [key: string]: unknown }>;
}

async function call(
  method: string,
  url: string,
  authHeader: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  const res = await fetch(url, {
    method,
    headers: { authorization: authHeader, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as unknown) : null };
}

function expectStatus(what: string, got: { status: number; json: unknown }, wanted: number): Record<string, unknown> {
  if (got.status !== wanted) throw new Error(`${what}: HTTP ${got.status} ${JSON.stringify(got.json)}`);
  return got.json as Record<string, unknown>;
}

export function createBenchApiClient(port: number, apiKey: string): BenchApiClient {
  const baseUrl = `http://127.0.0.1:${port}/api/v1`;
  const authHeader = `Bearer ${apiKey}`;
  return {
    baseUrl,
    authHeader,
    async createBot({ name, targetUrl, steps, capabilities }) {
      const bot = expectStatus(
        'create bot',
        await call('POST', `${baseUrl}/bots`, authHeader, { name, targetUrl, kind: 'extraction' }),
        201,
      );
      const botId = String(bot.id);
      expectStatus('put steps', await call('PUT', `${baseUrl}/bots/${botId}/steps`, authHeader, { steps }), 200);
      if (capabilities)
        expectStatus(
          'put manifest',
          await call('PUT', `${baseUrl}/bots/${botId}/manifest`, authHeader, { capabilities }),
          200,
        );
      return botId;
    },
    async trigger(botId) {
      // `{}` is what the API load sends too: no params, no Idempotency-Key.
      const body = expectStatus(
        'trigger',
        await call('POST', `${baseUrl}/bots/${botId}/executions`, authHeader, {}),
        202,
      );
      return String(body.executionId);
    },
    async getExecution(executionId) {
      return expectStatus(
        'get execution',
        await call('GET', `${baseUrl}/executions/${executionId}`, authHeader),
        200,
      ) as { status: string };
    },
  };
}
