import { withTimeout } from '@botfleet/core';

/** Resolves when the dependency can do its work; rejects (or hangs past the timeout) when not. */
export type ReadinessCheck = () => Promise<unknown>;

export type CheckStatus = 'ok' | 'down';

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, CheckStatus>;
}

/** A check slower than this counts as down: a probe must answer before the orchestrator's timeout. */
export const READINESS_TIMEOUT_MS = 2_000;

/**
 * The checks /readyz runs, added by each role for what it cannot work without (database, Redis,
 * the browser). Several roles in one process may add a check under the same name (each its own
 * Redis connection): the name is `ok` only when all of them pass.
 */
export function createReadiness() {
  const checks = new Map<string, Set<ReadinessCheck>>();
  return {
    /** Adds a check; returns how to remove it (a stopped role no longer counts). */
    add(name: string, check: ReadinessCheck): () => void {
      let named = checks.get(name);
      if (!named) checks.set(name, (named = new Set()));
      named.add(check);
      return () => {
        named.delete(check);
        if (named.size === 0 && checks.get(name) === named) checks.delete(name);
      };
    },
    async run(timeoutMs = READINESS_TIMEOUT_MS): Promise<ReadinessReport> {
      const entries = await Promise.all(
        [...checks].map(async ([name, named]): Promise<[string, CheckStatus]> => {
          const results = await Promise.allSettled(
            [...named].map((check) => withTimeout(check(), timeoutMs, `${name} did not answer`)),
          );
          return [name, results.every((r) => r.status === 'fulfilled') ? 'ok' : 'down'];
        }),
      );
      const report = Object.fromEntries(entries.sort(([a], [b]) => a.localeCompare(b)));
      return { ready: entries.every(([, status]) => status === 'ok'), checks: report };
    },
  };
}

export type Readiness = ReturnType<typeof createReadiness>;
