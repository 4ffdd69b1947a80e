export * from './journey-fixture';
export * from './cli-process';
