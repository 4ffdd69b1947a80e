export * from './start-worker';
export { sweepExecutions } from './sweep-executions';
