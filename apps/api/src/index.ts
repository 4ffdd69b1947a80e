export * from './app';
export * from './deps';
export * from './start-api';
export { createIdleLiveEvents } from './live/start-live-events';
export { createStreamSlots, type StreamSlots } from './live/stream-slots';
