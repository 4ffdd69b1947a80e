// Run-control figures: how fast the batch endpoint accepts runs, and how long a second
// organization's run waits while another organization holds a backlog (fair sharing).

interface HttpResult {
  status: number;
  json: Record<string, unknown>;
}

async function call(method: string, url: string, authHeader: string, body?: unknown): Promise<HttpResult> {
  const res = await fetch(url, {
    method,
    headers: { authorization: authHeader, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

function expectStatus(what: string, got: HttpResult, wanted: number): Record<string, unknown> {
  if (got.status !== wanted) throw new Error(`${what}: HTTP ${got.status} ${JSON.stringify(got.json)}`);
  return got.json;
}

export interface BatchRateResult {
  runs: number;
  batchSize: number;
  seconds: number;
  runsPerSecond: number;
}

/**
 * Sends `batches` batch requests of `batchSize` runs one after another (the worker stopped, so
 * nothing competes for the CPU) and reports runs accepted per second, then cancels them.
 */
export async function measureBatchRate(input: {
  baseUrl: string;
  authHeader: string;
  botId: string;
  batches: number;
  batchSize: number;
}): Promise<BatchRateResult> {
  const runs = Array.from({ length: input.batchSize }, () => ({}));
  const started = performance.now();
  for (let i = 0; i < input.batches; i++) {
    expectStatus(
      'batch',
      await call('POST', `${input.baseUrl}/bots/${input.botId}/executions/batch`, input.authHeader, { runs }),
      202,
    );
  }
  const seconds = (performance.now() - started) / 1000;
  expectStatus(
    'cancel',
    await call('POST', `${input.baseUrl}/bots/${input.botId}/executions/cancel`, input.authHeader, {}),
    200,
  );
  const total = input.batches * input.batchSize;
  return { runs: total, batchSize: input.batchSize, seconds, runsPerSecond: total / seconds };
}

export interface FairWaitResult {
  backlog: number;
  /** ms from the second organization's trigger to its run starting. */
  waitMs: number;
  /** The first organization's runs started meanwhile (an upper bound: counted until the run ended). */
  overtakenBy: number;
}

/**
 * Organization A queues `backlog` runs in one batch; once A's runs are going, organization B
 * triggers one run. Reports how long B's run waited to start and how many of A's runs started
 * meanwhile (with fair sharing, about one per worker slot, not A's backlog). A's backlog is
 * cancelled afterwards.
 */
export async function measureFairWait(input: {
  baseUrl: string;
  a: { authHeader: string; botId: string };
  b: { authHeader: string; botId: string };
  backlog: number;
}): Promise<FairWaitResult> {
  const { baseUrl, a, b } = input;
  const batchAt = Date.now() - 1_000;
  expectStatus(
    'backlog batch',
    await call('POST', `${baseUrl}/bots/${a.botId}/executions/batch`, a.authHeader, {
      runs: Array.from({ length: input.backlog }, () => ({})),
    }),
    202,
  );
  const startedOfA = async () => {
    const page = await call(
      'GET',
      `${baseUrl}/executions?status=running,completed,failed&createdAfter=${batchAt}&limit=100`,
      a.authHeader,
    );
    return (expectStatus('list', page, 200).data as unknown[]).length;
  };
  for (let i = 0; (await startedOfA()) < 2; i++) {
    if (i > 600) throw new Error('the backlog never started running');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  const before = await startedOfA();
  const triggered = expectStatus(
    'trigger B',
    await call('POST', `${baseUrl}/bots/${b.botId}/executions`, b.authHeader, {}),
    202,
  );
  let view: Record<string, unknown> = {};
  for (let i = 0; !['completed', 'failed', 'cancelled'].includes(String(view.status)); i++) {
    if (i > 6_000) throw new Error('the second organization’s run never ended');
    await new Promise((resolve) => setTimeout(resolve, 20));
    view = expectStatus(
      'get B',
      await call('GET', `${baseUrl}/executions/${String(triggered.executionId)}`, b.authHeader),
      200,
    );
  }
  const overtakenBy = (await startedOfA()) - before;
  expectStatus(
    'cancel backlog',
    await call('POST', `${baseUrl}/bots/${a.botId}/executions/cancel`, a.authHeader, {
      status: ['pending', 'running'],
    }),
    200,
  );
  return { backlog: input.backlog, waitMs: Number(view.startedAt) - Number(view.createdAt), overtakenBy };
}

export function formatRunControl(batch: BatchRateResult | null, fair: FairWaitResult | null): string {
  const lines = ['Run control'];
  if (batch)
    lines.push(
      `  batch trigger rate: ${Math.round(batch.runsPerSecond)} runs/s accepted ` +
        `(${batch.runs} runs in batches of ${batch.batchSize}, ${batch.seconds.toFixed(2)} s)`,
    );
  if (fair)
    lines.push(
      `  second organization's wait under a ${fair.backlog}-run backlog: ${fair.waitMs} ms to start ` +
        `(${fair.overtakenBy} of the backlog's runs started meanwhile)`,
    );
  return lines.join('\n');
}
