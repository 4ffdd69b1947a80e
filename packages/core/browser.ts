// The browser-safe part of @botfleet/core, reached as '@botfleet/core/browser' by the console (Vite
// reads the "exports" map; TypeScript's node10 resolution and Jest find this file). The package's
// index pulls in Node-only modules (secret boxes, hashing, ids), so the console imports
// only from here, and everything listed here imports nothing that needs Node.
export * from './src/flat-record';
export * from './src/steps/selector-text';
