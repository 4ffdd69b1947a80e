import type { ExecutionStatus } from '@botfleet/core';
import type { RunPosition } from '@botfleet/db';

/**
 * Where a run's event stream stands: the database position (attempt, next step, last log row)
 * and the phase of the run it last announced. It is each event's `id`, so a client that
 * reconnects with `Last-Event-ID` resumes from the database in one read (docs/live-runs.md).
 */
export interface RunCursor extends RunPosition {
  phase: RunPhase;
}

/**
 * The run's status as a stream announces it, in the order it moves within one attempt:
 * `waiting` (pending, never claimed), `running`, `requeued` (pending again, for the next
 * attempt), `ended`, then `closed`: the `end` event itself, so that it has an id of its own
 * (a client resuming from the final status still gets it). `unannounced` is a fresh stream's:
 * any phase differs from it.
 */
export type RunPhase = -1 | 0 | 1 | 2 | 3 | 4;
const UNANNOUNCED: RunPhase = -1;
export const CLOSED: RunPhase = 4;

export function phaseOf(status: ExecutionStatus, attempt: number): RunPhase {
  switch (status) {
    case 'pending':
      return attempt === 0 ? 0 : 2;
    case 'running':
      return 1;
    case 'completed':
    case 'failed':
    case 'cancelled':
      return 3;
  }
}

export const isEnded = (phase: RunPhase): boolean => phase >= 3;

/** Where a client without `Last-Event-ID` starts: before everything, the status still to announce. */
export const START: RunCursor = { attempt: 0, nextStep: 0, lastLogId: 0n, phase: UNANNOUNCED };

export function encodeRunCursor(cursor: RunCursor): string {
  return `${cursor.attempt}.${cursor.nextStep}.${cursor.lastLogId}.${cursor.phase}`;
}

const CURSOR = /^(\d{1,9})\.(\d{1,9})\.(\d{1,19})\.(-1|[0-4])$/;

/** A cursor this API issued, or null for anything else (the caller answers 400). */
export function decodeRunCursor(id: string): RunCursor | null {
  const match = CURSOR.exec(id);
  if (!match) return null;
  const lastLogId = BigInt(match[3]!);
  // ExecutionLog ids are bigint (signed 64 bit): a larger one was never issued.
  if (lastLogId > 9_223_372_036_854_775_807n) return null;
  return {
    attempt: Number(match[1]),
    nextStep: Number(match[2]),
    lastLogId,
    phase: Number(match[4]) as RunPhase,
  };
}
