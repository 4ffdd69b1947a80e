export * from './ids';
export * from './errors';
export * from './secret-box';
export * from './data-path';
export * from './flat-record';
export * from './stable-hash';
export * from './webhook-events';
export * from './artifact-url';
export * from './templating';
export * from './navigable-url';
export * from './config';
export * from './redis-settings';
export * from './organization-limits';
export * from './output-bounds';
export * from './schemas/common';
export * from './schemas/bot';
export * from './schemas/manifest';
export * from './schemas/webhook-url';
export * from './schemas/steps';
export * from './steps/define-step-action';
export * from './page-function';
export type * from './steps/step-page';
export type * from './steps/script-writer';
export {
  STEP_ACTIONS,
  findStepAction,
  stepActionOf,
  describeStep,
  stepUrlTemplates,
  type AnyStepActionDefinition,
} from './steps/registry';
export { NAVIGATION_WAIT_UNTIL } from './steps/actions/goto';
export * from './steps/element-selector';
export * from './steps/selector-text';
export { normalizeUrl, type NavigationWait } from './steps/navigation-wait';
export * from './recordings';
export * from './schemas/params';
export * from './schemas/execution';
export * from './schemas/artifact';
export * from './cron-schedule';
export * from './schemas/api-key';
export type * from './logger-interface';
export * from './repeated-log';
export * from './cursor';
export * from './bot-list-cursor';
export * from './api-key-token';
export * from './time-limit';
export * from './run-outcome';
export * from './public-address';
export * from './define-role';
export * from './start-periodic';
export * from './sessions/storage-state';
export * from './sessions/credential';
export * from './sessions/totp';
