// Public through @botfleet/runner/testing: browser helpers for tests of the runner and of the
// apps that run bots. Dependency-free helpers (fixture server, proxy, waitUntil) are in @botfleet/testkit.
export * from './browser';
export * from './browser-fixture';
export * from './fixture-pages';
export * from './memory-session';
export * from './png-colours';
export * from './zip-entries';
