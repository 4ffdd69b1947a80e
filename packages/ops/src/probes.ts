import type { Readiness } from './readiness';

/**
 * /healthz and /readyz, answered the same on OPS_PORT (ops-server.ts) and on the API's own port
 * (its health router): each server only writes the answer out. The 503 carries the API's error
 * envelope (code `unavailable`, the checks in `details`, `Retry-After: 5`), so a probe reads the
 * same whichever port it asks.
 */
export const PROBE_PATHS = ['/healthz', '/readyz'] as const;
export type ProbePath = (typeof PROBE_PATHS)[number];

export interface ProbeAnswer {
  status: 200 | 503;
  headers: Record<string, string>;
  body: unknown;
}

export function isProbePath(path: string): path is ProbePath {
  return (PROBE_PATHS as readonly string[]).includes(path);
}

/** Liveness: the process answers. Readiness: every check the process's roles added passes. */
export async function answerProbe(path: ProbePath, readiness: Readiness): Promise<ProbeAnswer> {
  if (path === '/healthz') return { status: 200, headers: {}, body: { status: 'ok' } };
  const { ready, checks } = await readiness.run();
  if (ready) return { status: 200, headers: {}, body: { status: 'ok', checks } };
  return {
    status: 503,
    headers: { 'Retry-After': '5' },
    body: { error: { code: 'unavailable', message: 'Not ready', details: checks } },
  };
}
