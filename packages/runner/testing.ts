// The test kit of @botfleet/runner, reached as '@botfleet/runner/testing' (TypeScript's node10
// resolution and Jest both find this file; neither needs an "exports" map).
export * from './src/testing';
