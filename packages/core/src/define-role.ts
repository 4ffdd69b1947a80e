import type { Role } from './config';

/**
 * A started role, the same for every role so the launcher composes them alike. Start-up has
 * already happened when a handle exists (the api listens, consumers are connected), so there is
 * no separate readiness here; /readyz reports on the dependencies themselves.
 */
export interface RoleHandle {
  readonly name: Role;
  /**
   * Stops the role: take no new work (close the server, stop fetching jobs and periodic
   * passes), give work in flight until the role's deadline, then release its connections.
   * Idempotent: later calls return the first call's promise.
   */
  stop(): Promise<void>;
}

/** What a role's start resolves to: how to stop it, plus extras only that role has (the api's port). */
export interface StartedRole {
  stop(): Promise<void>;
}

/** A role's handle: the common shape plus its typed extras. */
export type RoleHandleOf<Started extends StartedRole> = RoleHandle & Omit<Started, keyof RoleHandle>;

export interface RoleDefinition<Options, Handle extends RoleHandle> {
  readonly name: Role;
  start(options: Options): Promise<Handle>;
}

/**
 * Declares a role: its name and how to start it with its options; the handle stops once. The
 * roles themselves are declared on defineFleetRole (@botfleet/ops), which writes their common
 * lifecycle (connections, consume, readiness, drain, stop order) on top of this.
 */
export function defineRole<Options, Started extends StartedRole>(spec: {
  name: Role;
  start(options: Options): Promise<Started>;
}): RoleDefinition<Options, RoleHandleOf<Started>> {
  const { name } = spec;
  return Object.freeze({
    name,
    async start(options: Options): Promise<RoleHandleOf<Started>> {
      const started = await spec.start(options);
      let stopping: Promise<void> | undefined;
      // Shutdown may come from a signal and from a caller at once; the role stops once.
      return { ...started, name, stop: () => (stopping ??= started.stop()) };
    },
  });
}
