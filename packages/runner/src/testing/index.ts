export * from './fixture-server';
export * from './memory-session';
export * from './http-proxy';
export * from './processes';
export * from './wait-until';
export * from './browser';
export * from './browser-fixture';
