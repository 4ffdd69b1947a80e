// Public through @botfleet/api/testing: the API harness other apps' end-to-end tests build on.
export * from './api-harness';
export * from './event-stream';
