/**
 * Why an outbound request produced no HTTP response. Messages name the host as the URL gave it,
 * never the full URL (a query string may carry a credential), never a header value, and never an
 * address the host resolved to: these messages are stored and shown to tenants, and what an
 * internal name resolves to is the operator's business.
 */
export type HttpPostErrorKind = 'invalid_request' | 'destination_not_allowed' | 'timeout' | 'network';

export class HttpPostError extends Error {
  readonly kind: HttpPostErrorKind;

  constructor(kind: HttpPostErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'HttpPostError';
    this.kind = kind;
  }
}

/**
 * The destination is not on the public internet (a private, loopback or link-local address, by
 * literal or by resolution). It carries the host as given and nothing else: the address it
 * resolved to is deliberately not kept, so no message or log built from it can reveal it.
 */
export class DestinationRefusedError extends HttpPostError {
  readonly host: string;

  constructor(host: string) {
    super('destination_not_allowed', `destination_not_allowed: ${host}`);
    this.name = 'DestinationRefusedError';
    this.host = host;
  }
}

/** Logging in at a JWT `loginUrl` did not yield a token. */
export class JwtLoginError extends Error {
  /** The login endpoint's HTTP status, or null when it was never reached. */
  readonly statusCode: number | null;

  constructor(message: string, statusCode: number | null, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'JwtLoginError';
    this.statusCode = statusCode;
  }
}
