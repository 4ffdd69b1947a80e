// Public API of @botfleet/testkit: test helpers that know nothing of botfleet's own packages (so
// every workspace can use them without a dependency cycle). Helpers that build rows, run the API
// or open a browser live with the package they test: @botfleet/db/testing, @botfleet/api/testing,
// @botfleet/runner/testing.
export * from './wait-until';
export * from './fixture-server';
export * from './receiver';
export * from './http-proxy';
export * from './processes';
export * from './redis';
export * from './free-port';
export * from './redis-server';
export * from './redis-topologies';
export * from './recording-sites';
export * from './pgbouncer';
export * from './s3-server';
