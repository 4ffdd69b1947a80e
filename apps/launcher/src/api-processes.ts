import { repeatedLog, type Env, type Logger, type RoleHandle } from '@botfleet/core';
import {
  readProcessMetrics,
  sumProcessMetrics,
  type Ops,
  type ProcessMetrics,
  type ReadinessReport,
} from '@botfleet/ops';
import cluster, { type Worker } from 'node:cluster';

/*
 * API_PROCESSES > 1: the launcher's process (the primary) forks that many API processes with
 * node:cluster. They share PORT (the primary accepts connections and hands them out in turn), run
 * the api role only, and have no ops server: the primary serves OPS_PORT for all of them, its
 * /readyz asks each of them and its /metrics sums theirs with its own. The primary keeps every
 * other role it runs, prepares the database before forking, replaces an API process that dies,
 * and on a stop signal tells each to drain.
 */

/** How long the primary waits for one API process's answer before leaving it out. */
const READINESS_ANSWER_MS = 1_500;
const METRICS_ANSWER_MS = 3_000;

/** A replacement is started at once after a death that follows this long a life. */
export const STABLE_LIFE_MS = 30_000;
const FIRST_RETRY_DELAY_MS = 500;
const MAX_RETRY_DELAY_MS = 30_000;

/**
 * How long to wait before replacing an API process that lived `livedMs` and was itself started
 * `previousDelayMs` after the death before it. A process that had been up a while is replaced at
 * once; one that keeps dying on start (a bad deploy, a lost dependency) is retried after a delay
 * that doubles up to 30 s, so a crash loop does not spin the CPU or flood the log.
 */
export function restartDelayMs(previousDelayMs: number, livedMs: number): number {
  if (livedMs >= STABLE_LIFE_MS) return 0;
  return Math.min(MAX_RETRY_DELAY_MS, Math.max(FIRST_RETRY_DELAY_MS, previousDelayMs * 2));
}

/** True in a process forked by the primary's API processes (cluster.isWorker, read once here). */
export const isApiProcess = cluster.isWorker;

/**
 * The settings of a forked API process, from the primary's: the api role only, no ops server of
 * its own, no further forking, and a grace period that ends inside the primary's drain (the part
 * of SHUTDOWN_GRACE_SECONDS the primary gives its roles), so the primary sees it exit in time.
 */
export function apiProcessEnv(env: Env, drainMs: number): Env {
  return {
    ...env,
    ROLES: ['api'],
    OPS_PORT: 0,
    API_PROCESSES: 1,
    SHUTDOWN_GRACE_SECONDS: Math.max(1, Math.floor(drainMs / 1000)),
  };
}

const CHANNEL = 'botfleet:api-process';
type Question = 'readiness' | 'metrics';
interface Request {
  channel: typeof CHANNEL;
  kind: Question | 'drain';
  id: number;
}
type Reply = { channel: typeof CHANNEL; id: number } & ({ ok: true; value: unknown } | { ok: false; error: string });

const isOurs = (message: unknown): message is { channel: typeof CHANNEL } =>
  typeof message === 'object' && message !== null && (message as { channel?: unknown }).channel === CHANNEL;

/**
 * In an API process: answers the primary's questions (readiness, metrics) from this process's ops
 * set, and drains when told to. Returns how to stop listening.
 */
export function answerPrimary(options: { ops: Ops; drain: () => void; logger: Logger }): () => void {
  // A channel already closed means the primary is gone, and this process with it (cluster's rule).
  const reply = (message: Reply) => process.send?.(message, undefined, undefined, () => undefined);
  const listener = (message: unknown): void => {
    if (!isOurs(message)) return;
    const request = message as Request;
    if (request.kind === 'drain') return options.drain();
    const answer: Promise<unknown> =
      request.kind === 'readiness' ? options.ops.readiness.run() : readProcessMetrics(options.ops);
    answer.then(
      (value) => reply({ channel: CHANNEL, id: request.id, ok: true, value }),
      (err: unknown) => {
        options.logger.warn({ err: (err as Error).message, question: request.kind }, 'could not answer the primary');
        reply({ channel: CHANNEL, id: request.id, ok: false, error: (err as Error).message });
      },
    );
  };
  process.on('message', listener);
  return () => process.off('message', listener);
}

let lastRequestId = 0;

/** Asks one API process a question over IPC; rejects when it does not answer within `timeoutMs` or exits. */
function ask<T>(worker: Worker, kind: Question, timeoutMs: number): Promise<T> {
  const id = ++lastRequestId;
  const pid = worker.process.pid;
  return new Promise<T>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('exit', onExit);
    };
    const onMessage = (message: unknown) => {
      if (!isOurs(message) || (message as Reply).id !== id) return;
      done();
      const reply = message as Reply;
      if (reply.ok) resolve(reply.value as T);
      else reject(new Error(`API process ${pid}: ${reply.error}`));
    };
    const onExit = () => {
      done();
      reject(new Error(`API process ${pid} exited`));
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`API process ${pid} did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
    worker.on('message', onMessage);
    worker.once('exit', onExit);
    const request: Request = { channel: CHANNEL, kind, id };
    worker.send(request, (err: Error | null) => {
      if (err) {
        done();
        reject(new Error(`API process ${pid}: ${err.message}`));
      }
    });
  });
}

interface Slot {
  worker: Worker | null;
  listening: boolean;
  forkedAt: number;
  /** The delay this slot's current process was started after (0: at once). */
  restartDelayMs: number;
  restartTimer: NodeJS.Timeout | null;
}

export interface ApiProcesses {
  /** Forks the API processes; resolves with the handle of the api role once every one listens. */
  start(): Promise<RoleHandle & { port: number }>;
  /** What the primary's /metrics answers: its own metrics summed with every API process's. */
  readMetrics(): Promise<string>;
}

/**
 * `count` API processes, forked by start(). Made before the ops server starts (which serves
 * readMetrics) and started where the api role would start in a single process. Adds the readiness
 * check `api processes` to the primary's `ops`: ok when at least one API process listens and every
 * listening one is ready. A replacement being started does not make the machine unready, since the
 * others serve the port meanwhile; a crash loop of every one does.
 */
export function createApiProcesses(options: { count: number; ops: Ops; logger: Logger }): ApiProcesses {
  const { count, ops } = options;
  const logger = options.logger.child({ component: 'api-processes' });
  const slots: Slot[] = Array.from({ length: count }, () => ({
    worker: null,
    listening: false,
    forkedAt: 0,
    restartDelayMs: 0,
    restartTimer: null,
  }));
  let stopping = false;
  let port: number | null = null;
  const listening = () => slots.flatMap((slot) => (slot.worker && slot.listening ? [slot.worker] : []));

  ops.readiness.add('api processes', async () => {
    const workers = listening();
    if (workers.length === 0) throw new Error('no API process listens');
    const reports = await Promise.all(
      workers.map((worker) => ask<ReadinessReport>(worker, 'readiness', READINESS_ANSWER_MS)),
    );
    if (!reports.every((report) => report.ready)) throw new Error('an API process is not ready');
  });

  let onStartFailure: ((err: Error) => void) | null = null;
  let onListening: (() => void) | null = null;

  function fork(slot: Slot): void {
    slot.restartTimer = null;
    const worker = cluster.fork();
    slot.worker = worker;
    slot.listening = false;
    slot.forkedAt = Date.now();
    worker.on('listening', (address) => {
      slot.listening = true;
      port ??= address.port;
      logger.info({ apiProcessPid: worker.process.pid, port: address.port }, 'API process listening');
      onListening?.();
    });
    worker.once('exit', (code, signal) => {
      slot.worker = null;
      slot.listening = false;
      if (stopping) return;
      if (onStartFailure) {
        onStartFailure(new Error(`an API process exited (${signal ?? `code ${code}`}) before it listened`));
        return;
      }
      const livedMs = Date.now() - slot.forkedAt;
      slot.restartDelayMs = restartDelayMs(slot.restartDelayMs, livedMs);
      logger.error(
        { apiProcessPid: worker.process.pid, code, signal, livedMs, restartInMs: slot.restartDelayMs },
        'API process exited; starting a replacement',
      );
      slot.restartTimer = setTimeout(() => fork(slot), slot.restartDelayMs);
    });
  }

  async function stop(): Promise<void> {
    stopping = true;
    const exits: Promise<unknown>[] = [];
    for (const slot of slots) {
      if (slot.restartTimer) clearTimeout(slot.restartTimer);
      const worker = slot.worker;
      if (!worker) continue;
      exits.push(new Promise((exited) => worker.once('exit', exited)));
      // Each API process runs the same drain a stop signal starts in it (a signal sent to the
      // whole process group has already started it: the request then counts for nothing).
      if (worker.isConnected())
        worker.send({ channel: CHANNEL, kind: 'drain', id: 0 } satisfies Request, () => undefined);
    }
    await Promise.all(exits);
  }

  return {
    async start() {
      await new Promise<void>((started, failed) => {
        onListening = () => {
          if (slots.every((slot) => slot.listening)) started();
        };
        onStartFailure = failed;
        for (const slot of slots) fork(slot);
      }).catch(async (err: unknown) => {
        await stop();
        throw err;
      });
      onListening = null;
      onStartFailure = null;
      logger.info({ count, port }, 'API processes listening');
      let stopped: Promise<void> | undefined;
      return { name: 'api', port: port!, stop: () => (stopped ??= stop()) };
    },

    async readMetrics() {
      const answers = await Promise.all(
        listening().map((worker) =>
          ask<ProcessMetrics>(worker, 'metrics', METRICS_ANSWER_MS).catch((err: unknown) => {
            // Left out of this scrape, as a process that died is: its counters start again anyway.
            repeatedLog.warn(logger, { err: (err as Error).message }, 'an API process gave no metrics');
            return null;
          }),
        ),
      );
      return sumProcessMetrics(
        ops,
        answers.filter((answer): answer is ProcessMetrics => answer !== null),
      );
    },
  };
}
