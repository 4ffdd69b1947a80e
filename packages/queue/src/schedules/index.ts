export * from './job-schedulers';
export * from './tick-slot';
