/**
 * Why an outbound request produced no HTTP response. Messages name the host or address only,
 * never the full URL (a query string may carry a credential) and never a header value.
 */
export type HttpPostErrorKind = 'invalid_request' | 'refused_destination' | 'timeout' | 'network';

export class HttpPostError extends Error {
  readonly kind: HttpPostErrorKind;

  constructor(kind: HttpPostErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'HttpPostError';
    this.kind = kind;
  }
}

/** The destination resolved to an address outside the public internet. */
export class DestinationRefusedError extends HttpPostError {
  readonly host: string;
  readonly address: string;

  constructor(host: string, address: string) {
    const what = host === address ? `destination ${host} is` : `destination ${host} resolves to ${address},`;
    super('refused_destination', `${what} a private or loopback address (set ALLOW_PRIVATE_NETWORK=true to allow)`);
    this.name = 'DestinationRefusedError';
    this.host = host;
    this.address = address;
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
