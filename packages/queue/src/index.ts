export * from './jobs';
export * from './redis-connection';
export * from './queues';
export * from './execution-jobs';
export * from './delivery-jobs';
export * from './schedules';
export * from './stop-worker';
