/** The API answered with an error envelope: `{ "error": { "code", "message", "details" } }`. */
export class BotfleetApiError extends Error {
  constructor(
    /** The HTTP status (404, 409, ...). */
    readonly status: number,
    /** The envelope's code (`not_found`, `conflict`, `validation_error`, ...). */
    readonly code: string,
    message: string,
    readonly details: unknown,
    /** The response's X-Request-Id, to quote when asking the operator about a 500. */
    readonly requestId: string | null,
  ) {
    super(message);
    this.name = 'BotfleetApiError';
  }
}

/** The API could not be reached (refused, DNS, TLS, timeout): no response at all. */
export class BotfleetNetworkError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BotfleetNetworkError';
  }
}

interface Envelope {
  error: { code: string; message: string; details?: unknown };
}

function isEnvelope(body: unknown): body is Envelope {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return typeof error?.code === 'string' && typeof error.message === 'string';
}

/**
 * What a failed call becomes: the generated client hands its error interceptors the parsed body
 * (or the text, or fetch's TypeError when there was no response); callers get one of two classes.
 */
export function toBotfleetError(error: unknown, response: Response | undefined): Error {
  if (error instanceof BotfleetApiError || error instanceof BotfleetNetworkError) return error;
  if (!response) {
    const reason =
      error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
    return new BotfleetNetworkError(`Cannot reach the botfleet API: ${reason}`, { cause: error });
  }
  const requestId = response.headers.get('x-request-id');
  if (isEnvelope(error)) {
    return new BotfleetApiError(response.status, error.error.code, error.error.message, error.error.details, requestId);
  }
  // Not botfleet's envelope: a proxy or load balancer in between answered.
  const text = typeof error === 'string' && error.length > 0 ? `: ${error.slice(0, 200)}` : '';
  return new BotfleetApiError(response.status, 'http_error', `HTTP ${response.status}${text}`, undefined, requestId);
}
