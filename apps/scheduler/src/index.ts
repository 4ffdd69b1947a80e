// Public API of @botfleet/scheduler: the schedule runner the launcher starts. The schedule
// commands (apply, disarm, reconcile, fire) live in @botfleet/engine, so the API and this role
// share one implementation.
export { schedulerRole, startScheduler, type SchedulerHandle, type SchedulerOptions } from './start-scheduler';
