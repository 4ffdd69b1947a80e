import { spawn } from 'node:child_process';
import { machineBusyMs, processCpuMs } from './process-tree-cpu';

export interface LoadResult {
  /** Mean requests per second over the run (2xx and others alike; see `errors`). */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses that were not 2xx, plus connection errors and timeouts: should be 0. */
  errors: number;
  total: number;
  /**
   * Cores the load generator itself kept busy over the window (its CPU ms / the window's ms): on
   * a machine it shares with the server, what is left to the server is the cores minus this.
   */
  generatorCores: number;
  /** Cores the machine kept busy over the window, with anything (server, database, Redis, generator). */
  machineBusyCores: number;
}

/** The part of `autocannon --json` output the bench reads. */
interface AutocannonJson {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}

/**
 * One autocannon run (api-limit.ts runs them against botfleet's API and the bare server).
 * autocannon runs as a child process: in this process its load generation would share the
 * in-process API's event loop, and its CPU would be counted as the API's. (On 2 cores the two
 * still share the CPU; the load average is printed for that.)
 */
export function runAutocannon(options: {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  seconds: number;
  connections: number;
}): Promise<LoadResult> {
  const args = [
    require.resolve('autocannon'),
    '--json',
    '--no-progress',
    '-c',
    String(options.connections),
    '-d',
    String(options.seconds),
    '-m',
    options.method,
  ];
  for (const [name, value] of Object.entries(options.headers)) args.push('-H', `${name}=${value}`);
  if (options.body !== undefined) args.push('-b', options.body);
  args.push(options.url);

  return new Promise((resolve, reject) => {
    // Async spawn, never spawnSync: the API under test runs on this process's event loop.
    const machineBusyBefore = machineBusyMs();
    const started = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    // Its CPU is read from /proc while it runs (gone once it exits): the last reading is the total
    // but for the final fraction of a sampling interval.
    let generatorCpuMs = 0;
    const sampler = setInterval(() => {
      const cpuMs = processCpuMs(child.pid!);
      if (Number.isFinite(cpuMs)) generatorCpuMs = cpuMs;
    }, 100);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(sampler);
      const machineBusyCores = (machineBusyMs() - machineBusyBefore) / (performance.now() - started);
      if (code !== 0) return reject(new Error(`autocannon exited with ${code}: ${stderr.trim()}`));
      try {
        const json = JSON.parse(stdout) as AutocannonJson;
        resolve({
          rps: json.requests.average,
          p50Ms: json.latency.p50,
          p99Ms: json.latency.p99,
          errors: json.non2xx + json.errors + json.timeouts,
          total: json.requests.total,
          generatorCores: generatorCpuMs / (options.seconds * 1000),
          machineBusyCores,
        });
      } catch (error) {
        reject(new Error(`could not read autocannon output (${(error as Error).message}): ${stdout.slice(0, 300)}`));
      }
    });
  });
}
