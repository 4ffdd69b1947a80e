// The test kit of @botfleet/worker, reached as '@botfleet/worker/testing' (TypeScript's node10
// resolution and Jest both find this file).
export * from './src/testing';
