import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import { Pool, type PoolClient } from 'pg';

/*
 * The delivery role's physical limit: the durable work of one delivery and nothing else, in a
 * plain loop with the role's concurrency. Per delivery: claim the pending row with one UPDATE
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
