// Public through @botfleet/db/testing: throwaway databases and row factories for tests.
export * from './bot-seed';
export * from './factories';
export * from './row-checks';
export * from './test-database';
export * from './use-test-organization';
