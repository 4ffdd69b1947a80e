export * from './job-schedulers';
export * from './tick-slot';
export * from './series-start';
export * from './arm-plan';
