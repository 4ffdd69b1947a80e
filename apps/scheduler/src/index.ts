// Public API of @botfleet/scheduler: the runner for the launcher, and applySchedule for the API's
// PUT /bots/:botId/schedule, so arming a schedule is implemented once.
export { startScheduler, type SchedulerHandle, type SchedulerOptions } from './start-scheduler';
export { applySchedule, type ApplyScheduleDeps, type ScheduleSettings } from './apply-schedule';
export { reconcileSchedules, type ReconcileDeps, type ReconcileResult } from './reconcile';
export { schedulerIdOf } from './job-schedulers';
