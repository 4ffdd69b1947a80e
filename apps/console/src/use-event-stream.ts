import { useEffect, useRef, useState } from 'preact/hooks';
import { isUnauthorized } from './api-errors';
import { useSession } from './console-session';

/**
 * Follows one of the API's event streams (the SDK's followExecutionEvents or
 * followOrganizationEvents: fetch with the session's Authorization header, since EventSource
 * cannot send it, resumed after a drop with Last-Event-ID) while the component is shown and
 * `deps` stay the same, calling the latest `onEvent` for each event. Leaving the page closes the
 * stream. Returns the error that ended it, if one did; a 401 also signs the session out, as
 * useLoad does.
 */
export function useEventStream<E>(
  open: (signal: AbortSignal) => AsyncIterable<E>,
  onEvent: (event: E) => void,
  deps: unknown[],
): { error: unknown } {
  const session = useSession();
  const latest = useRef({ open, onEvent });
  latest.current = { open, onEvent };
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    const controller = new AbortController();
    setError(null);
    const follow = async () => {
      try {
        for await (const event of latest.current.open(controller.signal)) latest.current.onEvent(event);
      } catch (caught) {
        if (controller.signal.aborted) return;
        if (isUnauthorized(caught)) session.signOut('The API no longer accepts this key. Sign in again.');
        setError(caught);
      }
    };
    void follow();
    return () => controller.abort();
    // `open` and `onEvent` are fresh closures on every render; `deps` say when the stream must change.
  }, [session.client, ...deps]);

  return { error };
}
