import { loadavg } from 'node:os';

/** Nearest-rank percentile (p in 0..1) of values sorted ascending; 0 for an empty list. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? 0;
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, v) => sum + v, 0) / values.length;
}

export interface Distribution {
  mean: number;
  p50: number;
  p95: number;
  max: number;
}

export function distribution(values: readonly number[]): Distribution {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    mean: mean(sorted),
    p50: percentile(sorted, 0.5),
    p95: percentile(sorted, 0.95),
    max: sorted[sorted.length - 1] ?? 0,
  };
}

/** Runs per second over a window given in ms; both sides of the comparison use this definition. */
export function throughput(runs: number, windowMs: number): number {
  return windowMs > 0 ? runs / (windowMs / 1000) : 0;
}

/** One decimal place: more would be noise on a shared 2-core machine. */
export const round1 = (n: number): number => Math.round(n * 10) / 10;
export const round2 = (n: number): number => Math.round(n * 100) / 100;
export const round3 = (n: number): number => Math.round(n * 1000) / 1000;

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The 1-minute load average, so a slow run can be told apart from a busy machine. */
export function loadAverage1m(): number {
  return round2(loadavg()[0] ?? 0);
}
