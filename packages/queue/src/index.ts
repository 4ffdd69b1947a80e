export * from './define-job';
export * from './consume';
export * from './jobs';
export * from './redis-connection';
export * from './queues';
export * from './cancel-channel';
export * from './schedules';
export * from './stop-worker';
