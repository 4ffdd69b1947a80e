import type { ErrorCode } from '@botfleet/core';

/**
 * The HTTP status of each error code: the error handler answers with it, the OpenAPI document
 * documents it. Core names what went wrong; only the API knows it is spoken over HTTP.
 */
export const HTTP_STATUS_OF: Record<ErrorCode, number> = {
  /** Body, query or path failed validation; `details` lists `{ path, message }`. */
  validation_error: 400,
  /** The body is not JSON. */
  invalid_json: 400,
  /** A trigger `params` key that the manifest does not define. */
  unknown_parameter: 400,
  /** A trigger param of the wrong type, or a required one missing. */
  invalid_parameter: 400,
  /** A Chrome Recorder recording with a step botfleet cannot run; `details` names each (`steps.4`). */
  invalid_recording: 400,
  /** A request malformed below the level of fields (e.g. a body that fails to decompress). */
  bad_request: 400,
  /** No, malformed, unknown or revoked API key. */
  unauthorized: 401,
  /** The key lacks the permission. */
  forbidden: 403,
  /** No such resource, or it belongs to another organization. */
  not_found: 404,
  /** The request conflicts with the resource's state (e.g. triggering a paused bot). */
  conflict: 409,
  /** An operator's limit of the organization is reached (e.g. its number of API keys); `details` names it. */
  limit_reached: 409,
  /** The client took too long to send its headers or body. */
  request_timeout: 408,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  /** The request line and headers exceed the server's limit (16 KiB). */
  request_header_too_large: 431,
  internal_error: 500,
  /** A dependency (database, Redis) is down. */
  unavailable: 503,
};
