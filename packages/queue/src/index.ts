export * from './define-job';
export * from './consume';
// The job moves' vocabulary and the moves the engine names; applying a step stays inside (consume).
export { promoteDelayedJob, removeJob, type ConsumedJob, type JobNextStep } from './job-moves';
export * from './jobs';
export * from './redis-connection';
export * from './lua-script';
export * from './queues';
export * from './redis-keys';
export * from './execution-events';
export * from './schedules';
export * from './stop-worker';
export * from './redis-ready';
export * from './fair-share';
export * from './worker-count';
