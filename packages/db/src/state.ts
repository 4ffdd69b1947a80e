// The state changes of executions and deliveries, reached as '@botfleet/db/state'. Only the engine
// (packages/engine) moves a run or a delivery to another state (ARCHITECTURE.md, "The engine: one
// home for a run's life"), so only it imports this entry, besides tests and test kits that put a
// row into a state; packages/engine/src/state-writes.test.ts fails for anything else. What reads
// those rows, and every other repository, is on '@botfleet/db'. TypeScript's node10 resolution
// finds this file through package.json's "typesVersions", Jest and Node through its "exports"
// (the compiled dist/state.js under the `botfleet-dist` condition).
export {
  createExecution,
  createExecutionAsJudged,
  createExecutionOnce,
  createExecutions,
} from './repositories/executions';
export {
  cancelBotExecutions,
  cancelExecution,
  claimExecution,
  claimExecutionWithinCap,
  endExecutionAttempt,
  failUnfinishedExecution,
  finishExecution,
  requeueExecution,
} from './repositories/execution-lifecycle';
export { createEventDeliveries } from './repositories/event-deliveries';
export {
  claimDueDeliveries,
  recordDeliveryAttempt,
  recordDeliveryAttempts,
  releaseDeliveryClaim,
  restartDelivery,
} from './repositories/deliveries';
export {
  abandonDelivery,
  clearWebhookFailing,
  disableWebhook,
  noteWebhookFailing,
} from './repositories/webhook-health';
