import { settlesWithin, type Logger, type RoleHandle } from '@botfleet/core';

interface Handler {
  name: string;
  run: () => Promise<void>;
}

/**
 * One registry of shutdown steps, run in reverse order of registration (stop taking work
 * first, close shared connections last), each bounded so a stuck step cannot hang the exit.
 */
export function createShutdown(logger: Logger, stepTimeoutMs = 30_000) {
  const handlers: Handler[] = [];
  let running: Promise<void> | null = null;

  async function runStep(handler: Handler): Promise<void> {
    const run = handler
      .run()
      .catch((err: unknown) => logger.error({ err, step: handler.name }, 'shutdown step failed'));
    if (!(await settlesWithin(run, stepTimeoutMs))) logger.warn({ step: handler.name }, 'shutdown step timed out');
  }

  return {
    register(name: string, run: () => Promise<void>): void {
      handlers.push({ name, run });
    },
    /** A started role is one step: stopping it drains its work in flight and closes its connections. */
    registerRole(role: RoleHandle): void {
      handlers.push({ name: role.name, run: () => role.stop() });
    },
    run(): Promise<void> {
      running ??= (async () => {
        for (const handler of [...handlers].reverse()) await runStep(handler);
      })();
      return running;
    },
  };
}

export type Shutdown = ReturnType<typeof createShutdown>;
