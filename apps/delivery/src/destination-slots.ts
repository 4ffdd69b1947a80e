/**
 * How many attempts this process runs at once per destination (host and port). A receiver that
 * never answers holds each attempt for the whole timeout; without a bound, its deliveries would
 * take every consumer slot and every other receiver would wait behind it. With one, part of the
 * slots always stays free for other destinations.
 *
 * An attempt over the bound first waits briefly in the process for the destination's next free
 * slot: a fast receiver frees one within milliseconds, so a busy-but-healthy destination keeps
 * its throughput without jobs bouncing through Redis. Only when no slot frees in time (the
 * receiver is slow) is the attempt postponed, which hands its consumer slot to other receivers.
 */
export interface DestinationSlots {
  /** A release function once a slot is held, or null when none freed within `maxWaitMs`. */
  take(destination: string, maxWaitMs: number): Promise<(() => void) | null>;
}

/** The per-destination bound for a consumer running `concurrency` jobs at once. */
export function slotsPerDestination(concurrency: number): number {
  // A quarter of the slots (at least one) is kept for other receivers; one slot serves all.
  return Math.max(1, concurrency - Math.max(1, Math.floor(concurrency / 4)));
}

interface Destination {
  used: number;
  /** Attempts waiting for a slot, first come first served. */
  waiting: Array<(granted: boolean) => void>;
}

export function createDestinationSlots(maxPerDestination: number): DestinationSlots {
  const destinations = new Map<string, Destination>();

  function releaser(name: string, state: Destination): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = state.waiting.shift();
      // The slot passes straight to the next waiter; `used` stays the same.
      if (next) return next(true);
      state.used -= 1;
      if (state.used === 0) destinations.delete(name);
    };
  }

  return {
    async take(name, maxWaitMs) {
      let state = destinations.get(name);
      if (!state) {
        state = { used: 0, waiting: [] };
        destinations.set(name, state);
      }
      if (state.used < maxPerDestination) {
        state.used += 1;
        return releaser(name, state);
      }
      const current = state;
      const granted = await new Promise<boolean>((resolve) => {
        const waiter = (ok: boolean) => {
          clearTimeout(timer);
          resolve(ok);
        };
        const timer = setTimeout(() => {
          current.waiting.splice(current.waiting.indexOf(waiter), 1);
          resolve(false);
        }, maxWaitMs);
        current.waiting.push(waiter);
      });
      return granted ? releaser(name, current) : null;
    },
  };
}

/** The destination a URL reaches: host and port (an unparsable URL is its own destination). */
export function destinationOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || (parsed.protocol === 'https:' ? '443' : '80')}`;
  } catch {
    return url;
  }
}
