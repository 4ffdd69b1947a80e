import { constants } from 'node:os';

/**
 * The signals that ask botfleet to stop: SIGTERM (supervisors, `docker stop`, Kubernetes), SIGINT
 * (Ctrl-C) and SIGHUP (the terminal closed). Each starts the same graceful drain.
 */
export const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/**
 * One stop usually arrives as several signals within milliseconds: a signal sent to the whole
 * process group (systemd's default KillMode, an init that signals the group, Ctrl-C in a
 * terminal) reaches this process directly and again through every wrapper that forwards it (npm,
 * scripts/start.mjs). Signals within this window of the first are copies of that one stop; a
 * signal after it was sent on purpose, by a person who does not want to wait for the drain.
 */
export const REPEAT_WINDOW_MS = 2_000;

export interface StopSignalHandlers {
  /** The first stop signal: begin the graceful drain. */
  stop(signal: StopSignal): void;
  /** A copy of the first stop, within the window: the drain goes on. */
  repeated(signal: StopSignal): void;
  /** A stop signal after the window: stop at once. */
  insist(signal: StopSignal): void;
}

export interface StopSignalOptions {
  /** Where signals are heard; the process by default (tests pass an emitter). */
  source?: Pick<NodeJS.EventEmitter, 'on' | 'off'>;
  now?: () => number;
  windowMs?: number;
}

/**
 * Listens for every stop signal for the life of the process: counting them, rather than
 * listening once per signal, is what keeps a forwarded copy from meeting Node's default action
 * (an immediate exit) in the middle of the drain. Returns a function that stops listening.
 */
export function onStopSignals(handlers: StopSignalHandlers, options: StopSignalOptions = {}): () => void {
  const { source = process, now = Date.now, windowMs = REPEAT_WINDOW_MS } = options;
  let firstAt: number | null = null;
  const listener = (signal: StopSignal): void => {
    const at = now();
    if (firstAt === null) {
      firstAt = at;
      handlers.stop(signal);
    } else if (at - firstAt <= windowMs) {
      handlers.repeated(signal);
    } else {
      handlers.insist(signal);
    }
  };
  for (const signal of STOP_SIGNALS) source.on(signal, listener);
  return () => {
    for (const signal of STOP_SIGNALS) source.off(signal, listener);
  };
}

/** The exit status a shell reports for a process ended by `signal` (128 + its number, e.g. 130 for SIGINT). */
export function signalExitCode(signal: StopSignal): number {
  return 128 + constants.signals[signal];
}
