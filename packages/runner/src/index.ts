export * from './run-session';
