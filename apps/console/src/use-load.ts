import { useEffect, useState } from 'preact/hooks';
import { isUnauthorized } from './api-errors';
import { useSession } from './console-session';

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  /** Loads again now (after a change the page made). */
  reload(): void;
}

export interface LoadOptions<T> {
  /**
   * Poll every this many ms while keepPolling says so: for what no event stream carries (the
   * queue's figures, a webhook delivery still being tried). Runs are followed by their streams.
   */
  pollMs?: number;
  keepPolling?: (data: T) => boolean;
}

/**
 * Runs `load` when `deps` change, keeps the last good data while reloading, and polls while asked.
 * A 401 signs the session out: the key was revoked, and every other call would fail the same way.
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[], options: LoadOptions<T> = {}): Loaded<T> {
  const session = useSession();
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    let alive = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      setLoading(true);
      try {
        const value = await load();
        if (!alive) return;
        setData(value);
        setError(null);
        if (options.pollMs && options.keepPolling?.(value)) {
          timer = setTimeout(() => void run(), options.pollMs);
        }
      } catch (caught) {
        if (!alive) return;
        if (isUnauthorized(caught)) session.signOut('The API no longer accepts this key. Sign in again.');
        setError(caught);
      } finally {
        if (alive) setLoading(false);
      }
    };
    void run();
    return () => {
      alive = false;
      if (timer) clearTimeout(timer);
    };
    // `load` is a fresh closure on every render; `deps` say when its inputs changed.
  }, [...deps, generation]);

  return { data, error, loading, reload: () => setGeneration((n) => n + 1) };
}
