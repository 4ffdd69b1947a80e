export * from './start-worker';
