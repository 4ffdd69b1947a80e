import type { Browser } from 'playwright-core';

/*
 * Playwright (1.64) can answer a call after it has disposed the objects the answer names. Seen
 * with a page.goto that finished as its run's context closed (a cancelled run; the trace's
 * after-action snapshot kept the call open past the close): the server sent the page's
 * `__dispose__`, then the goto's result naming the page's Response. The client's dispatcher, run
 * from a setImmediate, throws "Object with guid response@… was not bound in the connection" for
 * it: an uncaught exception, which ends the worker's process with every run it holds (CI saw it
 * in fairness.e2e, whose end cancels running runs; DEBUG=pw:channel showed the order).
 *
 * The guard wraps the client connection's dispatch: such an answer rejects its call, as a call on
 * a closed page is rejected, instead of throwing out of the dispatcher. Any other dispatch error
 * still throws. It reaches into Playwright's client (`_connection`, `_callbacks`, `dispatch`),
 * pinned by the lock file; playwright-dispatch-guard.test.ts fails if those stop being what it
 * wraps.
 */

interface PendingCall {
  reject(error: Error): void;
}

interface ClientConnection {
  dispatch(message: { id?: number | string }): void;
  _callbacks: Map<number | string, PendingCall>;
}

const guarded = new WeakSet<object>();

/** Whether dispatch threw because an answer names an object the client has already disposed. */
const namesDisposedObject = (error: unknown): boolean =>
  error instanceof Error && /^Object with guid \S+ was not bound in the connection$/.test(error.message);

/** Guards the connection the browser's client objects share (once per connection). */
export function guardAgainstAnswersAfterDispose(browser: Browser): void {
  const connection = (browser as unknown as { _connection: ClientConnection })._connection;
  if (guarded.has(connection)) return;
  guarded.add(connection);
  const dispatch = connection.dispatch.bind(connection);
  connection.dispatch = (message) => {
    // Looked up first: dispatch forgets the call before it reads the answer.
    const call = message.id === undefined ? undefined : connection._callbacks.get(message.id);
    try {
      dispatch(message);
    } catch (error) {
      if (!call || !namesDisposedObject(error)) throw error;
      call.reject(
        new Error(
          `Target page, context or browser has been closed (the call's answer named what the close disposed: ${(error as Error).message})`,
        ),
      );
    }
  };
}
