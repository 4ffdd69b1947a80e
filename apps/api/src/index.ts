export * from './app';
export * from './deps';
export * from './start-api';
