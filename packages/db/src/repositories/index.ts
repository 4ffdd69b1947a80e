export * from './db-handle';
export * from './keyset';
export * from './organizations';
export * from './api-keys';
export * from './bots';
export * from './bot-list';
export * from './bot-definition';
export * from './bot-versions';
export * from './bot-logins';
export * from './manifests';
// Of a repository that also changes a run's or a delivery's state, only its reads and types are
// here: the state changes are on '@botfleet/db/state' alone (../state.ts), the engine's entry.
export {
  countPendingExecutions,
  EXECUTION_SUMMARY,
  findByIdempotencyKey,
  findExecution,
  findExecutionSummary,
  latestExecution,
  latestExtract,
  listExecutions,
  listOrganizationExecutions,
  NAMED_SUMMARY_COLUMNS,
  queueBacklog,
  type AsJudged,
  type ExecutionFilter,
  type ExecutionSummary,
  type NamedExecutionSummary,
  type NewExecution,
  type NewExecutions,
  type QueueBacklog,
} from './executions';
// Reads, types and the worker's progress writes; the lifecycle's state changes are on '@botfleet/db/state'.
export {
  findExecutionState,
  listStaleUnfinishedExecutions,
  newArtifactId,
  writeProgress,
  type AttemptFence,
  type ClaimedExecution,
  type ExecutionAttemptEnd,
  type ProgressWrite,
  type RunningCapRule,
} from './execution-lifecycle';
export * from './progress-batch';
export * from './execution-live';
export * from './steps';
// Reads and types; claims and records of attempts are on '@botfleet/db/state'.
export {
  findDeliveryOfOrganization,
  findOverdueDeliveries,
  listDeliveriesForBot,
  listDeliveriesForExecution,
  type DeliveryAttemptRecord,
  type DeliveryClaim,
  type DeliveryForAttempt,
  type DeliveryOutcome,
} from './deliveries';
export * from './data-changes';
export * from './schedules';
export * from './scripts';
export * from './execution-results';
export * from './execution-exports';
export * from './health';
export * from './execution-retention';
export * from './profiles';
export * from './credentials';
