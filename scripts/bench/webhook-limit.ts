import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import { Pool, type PoolClient } from 'pg';

/*
 * The one-at-a-time loop, printed beside the limit (the batched sender below): the durable work
 * of one delivery and nothing else, in a plain loop with the role's concurrency. Per delivery: claim the pending row with one UPDATE
 * (which returns the URL and body), sign the body (Standard Webhooks HMAC), POST it over a
 * keep-alive agent, then record the attempt and mark the delivery succeeded in one transaction.
 * No queue, no secret decryption, no manifest read, no Prisma. Every statement is a named
 * prepared statement on a raw pg Pool.
 */

const CLAIM = `UPDATE "WebhookDelivery" SET "nextAttemptAt" = now() + interval '5 minutes', "updatedAt" = now()
  WHERE id = $1 AND status = 'pending' AND "attemptCount" = 0 RETURNING url, body`;
const RECORD_ATTEMPT = `INSERT INTO "DeliveryAttempt" (id, "deliveryId", number, "startedAt", "durationMs", "statusCode", error)
  VALUES ($1, $2, 1, $3, $4, $5, NULL)`;
const MARK_DELIVERED = `UPDATE "WebhookDelivery" SET status = 'succeeded', "attemptCount" = 1, "lastError" = NULL,
  "nextAttemptAt" = NULL, "completedAt" = now(), "updatedAt" = now() WHERE id = $1`;

function post(agent: http.Agent, url: URL, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', agent, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function inTransaction(pool: Pool, work: (client: PoolClient) => Promise<void>): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await work(client);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

export interface BareWebhookLoopResult {
  deliveries: number;
  /** First claim to last commit. */
  windowMs: number;
}

/** Delivers every id in `deliveryIds` (pending rows, never attempted), `concurrency` at a time. */
export async function runBareWebhookLoop(options: {
  databaseUrl: string;
  deliveryIds: readonly string[];
  /** The plain-text HMAC secret the bot's manifest holds sealed. */
  secret: string;
  concurrency: number;
}): Promise<BareWebhookLoopResult> {
  // One connection per lane, as the role's Prisma pool serves its concurrency.
  const pool = new Pool({ connectionString: options.databaseUrl, max: Math.min(options.concurrency, 10) });
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
  const key = Buffer.from(options.secret, 'utf8');
  let next = 0;

  const deliverOne = async (deliveryId: string): Promise<void> => {
    const { rows } = await pool.query<{ url: string; body: string }>({
      name: 'bare-claim-delivery',
      text: CLAIM,
      values: [deliveryId],
    });
    const claimed = rows[0];
    if (!claimed) throw new Error(`bare webhook loop: delivery ${deliveryId} was not pending`);
    const startedAt = new Date();
    const timestamp = Math.floor(startedAt.getTime() / 1000);
    const signature = createHmac('sha256', key).update(`${deliveryId}.${timestamp}.${claimed.body}`).digest('base64');
    const status = await post(
      agent,
      new URL(claimed.url),
      {
        'content-type': 'application/json',
        'webhook-id': deliveryId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': `v1,${signature}`,
      },
      claimed.body,
    );
    if (status < 200 || status >= 300) throw new Error(`bare webhook loop: receiver answered ${status}`);
    const durationMs = Date.now() - startedAt.getTime();
    await inTransaction(pool, async (client) => {
      await client.query({
        name: 'bare-record-attempt',
        text: RECORD_ATTEMPT,
        values: [`dat_${randomUUID()}`, deliveryId, startedAt, durationMs, status],
      });
      await client.query({ name: 'bare-mark-delivered', text: MARK_DELIVERED, values: [deliveryId] });
    });
  };

  try {
    const started = performance.now();
    await Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        while (next < options.deliveryIds.length) await deliverOne(options.deliveryIds[next++]!);
      }),
    );
    return { deliveries: options.deliveryIds.length, windowMs: performance.now() - started };
  } finally {
    agent.destroy();
    await pool.end();
  }
}

/*
 * The batched durable sender: the same durable work as the loop above (claim, sign, POST over
 * keep-alive, attempt row, delivery marked), amortised over a batch. Each lane claims up to
 * `batchSize` pending rows in one statement (SKIP LOCKED, so lanes never take the same row),
 * POSTs them all at once, then records every attempt and marks every delivery in one statement.
 * This is the ceiling the delivery role is measured against (webhookRatio).
 */

const CLAIM_BATCH = `UPDATE "WebhookDelivery" SET "nextAttemptAt" = now() + interval '5 minutes', "updatedAt" = now()
  WHERE id IN (SELECT d.id FROM unnest($1::text[]) AS wanted(id) JOIN "WebhookDelivery" d ON d.id = wanted.id
    WHERE d.status = 'pending' AND d."attemptCount" = 0 AND COALESCE(d."nextAttemptAt", '-infinity') <= now()
    LIMIT $2 FOR UPDATE OF d SKIP LOCKED)
  RETURNING id, url, body`;
const RECORD_BATCH = `WITH sent AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::int[], $5::int[])
      AS t(attempt_id, delivery_id, started_at, duration_ms, status_code)
  ), moved AS (
    UPDATE "WebhookDelivery" d SET status = 'succeeded', "attemptCount" = 1, "lastError" = NULL,
      "nextAttemptAt" = NULL, "completedAt" = now(), "updatedAt" = now()
      FROM sent WHERE d.id = sent.delivery_id AND d.status = 'pending' AND d."attemptCount" = 0
    RETURNING d.id
  )
  INSERT INTO "DeliveryAttempt" (id, "deliveryId", number, "startedAt", "durationMs", "statusCode", error)
  SELECT sent.attempt_id, sent.delivery_id, 1, sent.started_at, sent.duration_ms, sent.status_code, NULL
    FROM sent JOIN moved ON moved.id = sent.delivery_id`;

/** Delivers every id in `deliveryIds` (pending rows, never attempted) in batches of `batchSize`. */
export async function runBatchedWebhookSender(options: {
  databaseUrl: string;
  deliveryIds: readonly string[];
  secret: string;
  /** Rows claimed per statement; also the POSTs in flight per lane. */
  batchSize: number;
  /** Lanes claiming concurrently, so one batch's POSTs overlap the next one's claim. */
  lanes: number;
}): Promise<BareWebhookLoopResult> {
  const pool = new Pool({ connectionString: options.databaseUrl, max: options.lanes });
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.batchSize * options.lanes });
  const key = Buffer.from(options.secret, 'utf8');
  const ids = [...options.deliveryIds];
  let delivered = 0;

  const sendBatch = async (): Promise<number> => {
    const { rows } = await pool.query<{ id: string; url: string; body: string }>({
      name: 'batched-claim-deliveries',
      text: CLAIM_BATCH,
      values: [ids, options.batchSize],
    });
    if (rows.length === 0) return 0;
    const startedAt = new Date();
    const timestamp = Math.floor(startedAt.getTime() / 1000);
    const statuses = await Promise.all(
      rows.map((row) => {
        const signature = createHmac('sha256', key).update(`${row.id}.${timestamp}.${row.body}`).digest('base64');
        return post(
          agent,
          new URL(row.url),
          {
            'content-type': 'application/json',
            'webhook-id': row.id,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': `v1,${signature}`,
          },
          row.body,
        );
      }),
    );
    if (statuses.some((status) => status < 200 || status >= 300))
      throw new Error(`batched webhook sender: receiver answered ${statuses.join(',')}`);
    const durationMs = Date.now() - startedAt.getTime();
    await pool.query({
      name: 'batched-record-deliveries',
      text: RECORD_BATCH,
      values: [
        rows.map(() => `dat_${randomUUID()}`),
        rows.map((row) => row.id),
        rows.map(() => startedAt),
        rows.map(() => durationMs),
        statuses,
      ],
    });
    return rows.length;
  };

  try {
    const started = performance.now();
    await Promise.all(
      Array.from({ length: options.lanes }, async () => {
        for (let sent = await sendBatch(); sent > 0; sent = await sendBatch()) delivered += sent;
      }),
    );
    if (delivered !== ids.length)
      throw new Error(`batched webhook sender: ${delivered} of ${ids.length} deliveries were pending`);
    return { deliveries: delivered, windowMs: performance.now() - started };
  } finally {
    agent.destroy();
    await pool.end();
  }
}
