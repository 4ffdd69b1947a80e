import type { ErrorCode, OrganizationLimitOverrides, Permission } from '@botfleet/core';
import type { Db } from '@botfleet/db';
import type { Request, Response } from 'express';
import type { z } from 'zod';

type Schema = z.ZodType | undefined;
/** Headers are named fields, so their schema is an object whose keys are the header names. */
type HeadersSchema = z.ZodObject | undefined;
type Output<S extends Schema> = S extends z.ZodType ? z.output<S> : undefined;

/** The authenticated caller: an API key of one organization. */
export interface AuthContext {
  keyId: string;
  organizationId: string;
  permission: Permission;
  /** The limits the operator set the organization (null: the env default), as of the key lookup. */
  limits: OrganizationLimitOverrides;
}

/** What a resource loader is given: the database, who is calling and the parsed path. */
export interface LoaderInput<P> {
  db: Db;
  auth: AuthContext;
  params: P;
}

/**
 * Fetches the resource a path names, as the caller may see it, and throws the 404 envelope when
 * it is not the caller's. Declared once per resource (routes/resource-loaders.ts) and named in a
 * route's `load`; runs after authentication and input validation, so a bad request answers 400
 * before anyone learns whether the resource exists.
 */
export type ResourceLoader<P, T> = (input: LoaderInput<P>) => Promise<T>;

export interface RouteResponseSpec {
  description: string;
  /** The JSON body of this status; the handler's answer is typed by it, and contract.test.ts parses it. */
  schema?: z.ZodType;
  /** Headers the route sets on this response (e.g. `Location`), by name, with what they carry. */
  headers?: Record<string, string>;
  /** The body's media type when it is not JSON (an artifact's `image/png`); documented as binary. */
  mediaType?: string;
  /**
   * For an event stream (`mediaType: 'text/event-stream'`): one event of it (`event`, `id`,
   * `data`), documented as the stream's schema as OpenAPI tools expect for Server-Sent Events.
   */
  events?: z.ZodType;
  /**
   * Media types the handler may answer instead of the JSON of `schema` (an export's `text/csv`),
   * written by the handler itself on `res` and answered `handled: true`; documented as text. With
   * `mediaType`, the other binary types the body may have (an artifact's, by its kind).
   */
  alsoMediaTypes?: readonly string[];
  /** An error response's code, when the status has several (409: `conflict` or `limit_reached`). */
  code?: ErrorCode;
}

/** A route's answers by status: what it documents and what its handler may return. */
export type RouteResponses = Record<number, RouteResponseSpec>;

export interface RouteDefinition<
  P extends Schema,
  Q extends Schema,
  B extends Schema,
  H extends HeadersSchema,
  L,
  R extends RouteResponses = RouteResponses,
> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Express-style path below /api/v1. */
  path: string;
  /**
   * The name generated clients give the call (`listBots`, `triggerExecution`): verb first, unique
   * across the API, and stable, because SDK users' code calls it by this name.
   */
  operationId: string;
  summary: string;
  /** Longer prose for the reference page, when the summary does not say enough. */
  description?: string;
  tag: string;
  /** Permission the key needs; `null` for public routes. */
  permission: Permission | null;
  params?: P;
  query?: Q;
  body?: B;
  /**
   * Request headers the route reads (e.g. Idempotency-Key), keyed by their documented name and
   * matched case-insensitively; validated like the body and documented as header parameters.
   * Headers not named here are not the route's business and are ignored.
   */
  headers?: H;
  /** Resources the path names, loaded in this order; each reaches the handler under its key. */
  load?: L;
  /** A body limit of the route's own instead of the API's (a recording may be larger than other bodies). */
  bodyLimitBytes?: number;
  responses: R;
}

export interface RouteContext<P, Q, B, H> {
  auth: AuthContext;
  params: P;
  query: Q;
  body: B;
  headers: H;
  req: Request;
  res: Response;
}

/** Loaders for a route whose parsed path is P; their keys may not shadow the context's own. */
type LoadersFor<P> = Record<string, ResourceLoader<P, unknown>> & {
  [K in keyof RouteContext<P, unknown, unknown, unknown>]?: never;
};

/** What the route's loaders resolve to, by key. */
export type Loaded<L> = { [K in keyof L]: L[K] extends ResourceLoader<never, infer T> ? T : never };

/** Error statuses are answered by throwing an AppError (the error handler renders the envelope), never returned. */
type ErrorStatus<S extends number> = S extends unknown
  ? `${S}` extends `4${string}` | `5${string}`
    ? S
    : never
  : never;

/** The statuses a handler returns: those its route declares, less the errors. */
type SuccessStatus<R extends RouteResponses> = Exclude<keyof R & number, ErrorStatus<keyof R & number>>;

/** One declared status's answer: its schema's shape, no body when it declares none, or a response sent by hand. */
type ResultOf<S extends number, Spec extends RouteResponseSpec> = Spec extends { mediaType: string }
  ? { status: S; handled: true }
  : Spec extends { schema: infer Body extends z.ZodType }
    ? | { status: S; body: z.output<Body>; headers?: Record<string, string> }
      | (Spec extends { alsoMediaTypes: readonly string[] } ? { status: S; handled: true } : never)
    : { status: S; body?: undefined; headers?: Record<string, string> };

/**
 * What a handler may answer: one of the statuses its route declares, with a body of that status's
 * schema, so an undeclared status or shape is a compile error. A non-JSON response (`mediaType`)
 * is written by the handler itself on `res` and answered `handled: true`.
 */
export type RouteResult<R extends RouteResponses = RouteResponses> = {
  [S in SuccessStatus<R>]: ResultOf<S, R[S]>;
}[SuccessStatus<R>];

/** A result as the mounting code sees it, whatever the route. */
interface AnyRouteResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** The handler wrote the response itself (e.g. a binary download). */
  handled?: true;
}

/** A declared route with its types erased, as the mounting and documenting code sees it. */
export interface Route {
  definition: RouteDefinition<Schema, Schema, Schema, HeadersSchema, Record<string, ResourceLoader<unknown, unknown>>>;
  handler: (ctx: RouteContext<unknown, unknown, unknown, unknown> & Record<string, unknown>) => Promise<AnyRouteResult>;
}

/**
 * The one way to declare an endpoint: the same zod schemas validate requests and feed the
 * OpenAPI document, so the two cannot drift apart. Requests are checked in a fixed order: who you
 * are (401/403), then what you sent (400: path, query, body, headers), then what exists (404:
 * ids that cannot exist, then each loader), and only then does the handler run.
 */
export function defineRoute<
  P extends Schema = undefined,
  Q extends Schema = undefined,
  B extends Schema = undefined,
  H extends HeadersSchema = undefined,
  L extends LoadersFor<Output<P>> = Record<never, never>,
  R extends RouteResponses = RouteResponses,
>(
  definition: RouteDefinition<P, Q, B, H, L, R>,
  handler: (ctx: RouteContext<Output<P>, Output<Q>, Output<B>, Output<H>> & Loaded<L>) => Promise<RouteResult<R>>,
): Route {
  return { definition, handler } as unknown as Route;
}
