// Public API of @botfleet/engine: every command that changes the state of an execution or a
// delivery. Each is one repository transaction, then the enqueue after commit, then best-effort
// notices; no other package or app writes a run's or a delivery's state (state-writes.test.ts).
export type { CancelDeps, EngineDeps, EngineSettings } from './engine-deps';
export { INFRASTRUCTURE_FAILURE, maxInfraRetriesOf } from './caps';
export {
  rerunExecution,
  triggerExecution,
  triggerExecutionBatch,
  triggerScheduledExecution,
  type BatchInput,
  type RerunInput,
  type ScheduledSlot,
  type ScheduledTrigger,
  type TriggerInput,
} from './trigger';
export { cancelBotExecutions, cancelExecution } from './cancel';
export {
  claimExecution,
  completeExecution,
  failAbandonedExecution,
  requeueExecution,
  type AttemptRef,
  type ExecutionClaim,
} from './attempts';
export { PROFILE_TURN_RECHECK_MS } from './profile-turns';
// The worker's progress writes are not state changes, but the live streams hear of them the same way.
export { notifyBestEffort, publishRunChanges } from './after-commit';
export {
  abandonDelivery,
  claimDueDeliveries,
  recordDeliveryAttempt,
  recordDeliveryAttempts,
  redeliverDelivery,
  releaseDeliveryClaim,
} from './deliveries';
export type { SweepOptions } from './sweep-options';
export { sweepExecutions, type ExecutionSweepOptions } from './sweep-executions';
export { sweepDeliveries, type DeliverySweepOptions } from './sweep-deliveries';
