// The API's physical limit, run by api-limit.ts as a child process: node:http + one pg Pool +
// one BullMQ queue, nothing else. It does the durable work of the two hot routes and no more:
//   GET  /api/v1/executions/:id         one named prepared SELECT by id and organization, JSON answer
//   POST /api/v1/bots/:botId/executions one named prepared INSERT of a pending row + queue.add, 202
// No authentication, validation, routing library, logging or metrics: what botfleet adds on top
// of this is what the ratio measures. Started with BARE_* variables; reports its port over IPC.
// With BARE_HTTP=express the same two handlers sit behind a minimal Express app (a router, res.json):
// the ceiling any Express API doing this durable work can reach, since botfleet's shape is Express.
import { executionRun } from '@botfleet/queue';
import { Queue } from 'bullmq';
import express from 'express';
import IORedis from 'ioredis';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';

export interface BareServerReady {
  type: 'ready';
  port: number;
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} must be set (the bench starts this server)`);
  return value;
}

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** An id of the shape botfleet's newId gives (`exe_` + 10 time + 16 random base32 characters). */
function executionId(): string {
  let time = '';
  for (let i = 0, n = Date.now(); i < 10; i++, n = Math.floor(n / 32)) time = ALPHABET[n % 32] + time;
  const random = randomBytes(16);
  let tail = '';
  for (let i = 0; i < 16; i++) tail += ALPHABET[random[i]! % 32];
  return `exe_${time}${tail}`;
}

interface ExecutionRow {
  id: string;
  botId: string;
  status: string;
  trigger: string;
  params: Record<string, unknown>;
  createdAt: Date;
  startedAt: Date | null;
  completedAt: Date | null;
}

const GET_EXECUTION = `SELECT id, "botId", status, trigger, params, "createdAt", "startedAt", "completedAt"
  FROM "Execution" WHERE id = $1 AND "organizationId" = $2`;
const INSERT_EXECUTION = `INSERT INTO "Execution" (id, "botId", "organizationId", status, trigger, params, "updatedAt")
  VALUES ($1, $2, $3, 'pending', 'api', '{}', now()) RETURNING id, status`;

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function main(): Promise<void> {
  const organizationId = required('BARE_ORGANIZATION_ID');
  // The same pool size as botfleet's Prisma adapter (pg's default, 10).
  const pool = new Pool({ connectionString: required('DATABASE_URL'), max: 10 });
  const connection = new IORedis(required('REDIS_URL'), { maxRetriesPerRequest: 1 });
  const queue = new Queue(executionRun.queue, { connection, prefix: required('BARE_QUEUE_PREFIX') });

  const getExecution = async (id: string | undefined): Promise<[number, unknown]> => {
    const { rows } = await pool.query<ExecutionRow>({
      name: 'bare-get-execution',
      text: GET_EXECUTION,
      values: [id, organizationId],
    });
    const row = rows[0];
    if (!row) return [404, { error: 'not found' }];
    const started = row.startedAt?.getTime() ?? null;
    const completed = row.completedAt?.getTime() ?? null;
    return [
      200,
      {
        id: row.id,
        botId: row.botId,
        status: row.status,
        trigger: row.trigger,
        params: row.params,
        createdAt: row.createdAt.getTime(),
        startedAt: started,
        completedAt: completed,
        duration: started === null ? null : (completed ?? Date.now()) - started,
      },
    ];
  };
  const trigger = async (botId: string | undefined, body: string): Promise<[number, unknown]> => {
    JSON.parse(body || '{}');
    const { rows } = await pool.query<{ id: string; status: string }>({
      name: 'bare-insert-execution',
      text: INSERT_EXECUTION,
      values: [executionId(), botId, organizationId],
    });
    const row = rows[0]!;
    // The same job name, id rule and options as botfleet's executionRun.enqueue.
    await queue.add(executionRun.name, { executionId: row.id }, { ...executionRun.options, jobId: row.id });
    return [202, { executionId: row.id, status: row.status }];
  };
  const readBody = async (req: http.IncomingMessage): Promise<string> => {
    let body = '';
    for await (const chunk of req) body += String(chunk);
    return body;
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const path = (req.url ?? '').split('?')[0]!.split('/');
    // ['', 'api', 'v1', 'executions', ':id'] or ['', 'api', 'v1', 'bots', ':botId', 'executions']
    if (req.method === 'GET' && path.length === 5 && path[3] === 'executions') {
      req.resume();
      return send(res, ...(await getExecution(path[4])));
    }
    if (req.method === 'POST' && path.length === 6 && path[3] === 'bots' && path[5] === 'executions') {
      return send(res, ...(await trigger(path[4], await readBody(req))));
    }
    req.resume();
    send(res, 404, { error: 'not found' });
  };

  const expressApp = express();
  expressApp.disable('x-powered-by');
  expressApp.set('etag', false);
  const router = express.Router();
  router.get('/executions/:id', (req, res, next) => {
    getExecution(req.params.id).then(([status, body]) => res.status(status).json(body), next);
  });
  router.post('/bots/:botId/executions', (req, res, next) => {
    readBody(req)
      .then((body) => trigger(req.params.botId, body))
      .then(([status, body]) => res.status(status).json(body), next);
  });
  expressApp.use('/api/v1', router);

  const server =
    process.env.BARE_HTTP === 'express'
      ? http.createServer(expressApp)
      : http.createServer((req, res) => {
          handle(req, res).catch((error: unknown) => {
            if (!res.headersSent) send(res, 500, { error: (error as Error).message });
          });
        });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const ready: BareServerReady = { type: 'ready', port: (server.address() as AddressInfo).port };
  process.send?.(ready);

  // The parent disconnecting (IPC closed) is the signal to stop: clean up what it left queued.
  process.on('disconnect', () => {
    server.close();
    server.closeAllConnections();
    void (async () => {
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
      connection.disconnect();
      await pool.end();
      process.exit(0);
    })();
  });
}

main().catch((error: unknown) => {
  process.stderr.write(
    `[bare api] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
