// The test kit of @botfleet/db, reached as '@botfleet/db/testing' (TypeScript's node10 resolution
// and Jest both find this file; neither needs an "exports" map).
export * from './src/testing';
