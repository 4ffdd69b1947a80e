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
  type AttemptEnd,
  type AttemptRef,
  type ExecutionClaim,
  type RequeueStep,
} from './attempts';
// What happens next to a run: decided here, written by the commands above, applied by the queue.
export {
  decideAttemptEnd,
  infrastructureFailureOutcome,
  type AttemptDecision,
  type AttemptPolicy,
  type AttemptResult,
  type UnclaimedReason,
} from './run-decisions';
// The worker's progress writes are not state changes, but the live streams hear of them the same way.
export { notifyBestEffort, publishRunChanges } from './after-commit';
export {
  claimDeliveryAttempts,
  postponeDeliveryAttempt,
  recordDeliveryAttempts,
  redeliverDelivery,
  type DeliveryAttemptClaim,
  type DeliveryDeps,
  type RecordedDeliveryAttempt,
  type SentDeliveryAttempt,
} from './deliveries';
// What a delivery's attempts are decided from and come to (delivery-policy.ts decides).
export type {
  AttemptOutcome,
  DeliveryAnswer,
  DeliveryPolicy,
  WebhookDisable,
  WebhookDisableReason,
} from './delivery-policy';
export type { SweepOptions } from './sweep-options';
export { sweepExecutions, type ExecutionSweepOptions } from './sweep-executions';
export { sweepDeliveries, type DeliverySweepOptions } from './sweep-deliveries';
export * from './schedules'; // and a schedule's commands: apply, disarm, reconcile, fire
