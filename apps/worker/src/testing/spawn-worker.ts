import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

/**
 * Starts worker-process.ts in a process of its own (for crash, memory and shutdown tests) and
 * resolves once it is ready. `env` adds settings it reads (CONCURRENCY, LOCK_DURATION_MS,
 * MAX_INFRA_RETRIES, WORKER_LOG_LEVEL: its pino lines then go to its stdout, ...); its sweep only
 * sees `organizationId`'s rows.
 */
export function spawnWorkerProcess(
  queuePrefix: string,
  organizationId: string,
  env: Record<string, string> = {},
): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'worker-process.ts')], {
    env: {
      ...process.env,
      QUEUE_PREFIX: queuePrefix,
      LOCK_DURATION_MS: '3000',
      SWEEP_ORGANIZATION_ID: organizationId,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('worker ready')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`worker exited early (${code})`)));
  });
}

/** SIGKILLs the worker if it is still running. */
export function killWorkerProcess(child: ChildProcess): void {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}
