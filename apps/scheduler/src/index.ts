// Public API of @botfleet/scheduler: the schedule runner the launcher starts. Arming a job
// scheduler lives in @botfleet/queue, so the API and this role share one implementation.
export { schedulerRole, startScheduler, type SchedulerHandle, type SchedulerOptions } from './start-scheduler';
export { reconcileSchedules, type ReconcileDeps, type ReconcileResult } from './reconcile';
