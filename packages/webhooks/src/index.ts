export { signPayload, type SignPayloadInput } from './sign';
export {
  isPublicAddress,
  assertLiteralHostAllowed,
  createGuardedLookup,
  type DestinationPolicy,
} from './destination-guard';
export {
  httpPost,
  DEFAULT_MAX_RESPONSE_BYTES,
  type HttpPostRequest,
  type HttpPostOptions,
  type HttpPostResponse,
} from './http-post';
export { JwtTokenCache, type JwtCredentials, type JwtLoginOptions, type JwtTokenCacheOptions } from './jwt-token-cache';
export {
  deliverWebhook,
  type DeliveryRequest,
  type DeliveryOptions,
  type DeliveryResult,
  type DeliveryLogger,
} from './deliver';
export { parseRetryAfterMs } from './retry-after';
export { HttpPostError, DestinationRefusedError, JwtLoginError, type HttpPostErrorKind } from './errors';
export { createConnectionPool, type ConnectionPool, type ConnectionPoolOptions } from './connection-pool';
