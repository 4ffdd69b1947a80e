/**
 * Every error code the API can answer with: what went wrong, in the contract's words. Which HTTP
 * status each one gets is the API's business (apps/api/src/http/error-status.ts).
 */
export const ERROR_CODES = [
  'validation_error',
  'invalid_json',
  'unknown_parameter',
  'invalid_parameter',
  'invalid_recording',
  'bad_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'conflict',
  'limit_reached',
  'request_timeout',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'request_header_too_large',
  'internal_error',
  'unavailable',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ValidationIssue {
  path: string;
  message: string;
}

/** A failure with a stable code; services throw it, the API's error handler renders it. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: unknown;

  constructor(code: ErrorCode, message: string, details?: unknown) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
  }
}

export const notFound = (what: string): AppError => new AppError('not_found', `${what} not found`);
