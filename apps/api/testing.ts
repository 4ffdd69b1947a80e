// The test kit of @botfleet/api, reached as '@botfleet/api/testing' (TypeScript's node10 resolution
// and Jest both find this file; neither needs an "exports" map).
export * from './src/testing';
