import type { Permission } from '@botfleet/core';
import type { Request, Response } from 'express';
import type { z } from 'zod';

type Schema = z.ZodType | undefined;
type Output<S extends Schema> = S extends z.ZodType ? z.output<S> : undefined;

/** The authenticated caller: an API key of one organization. */
export interface AuthContext {
  keyId: string;
  organizationId: string;
  permission: Permission;
}

export interface RouteResponseSpec {
  description: string;
  schema?: z.ZodType;
}

export interface RouteDefinition<P extends Schema, Q extends Schema, B extends Schema> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Express-style path below /api/v1 (or absolute when `absolute` is set). */
  path: string;
  summary: string;
  tag: string;
  /** Permission the key needs; `null` for public routes. */
  permission: Permission | null;
  params?: P;
  query?: Q;
  body?: B;
  /** Request headers worth documenting (e.g. Idempotency-Key). */
  headers?: Record<string, string>;
  responses: Record<number, RouteResponseSpec>;
}

export interface RouteContext<P, Q, B> {
  auth: AuthContext;
  params: P;
  query: Q;
  body: B;
  req: Request;
  res: Response;
}

export interface RouteResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** The handler wrote the response itself (e.g. a binary download). */
  handled?: boolean;
}

export interface Route {
  definition: RouteDefinition<Schema, Schema, Schema>;
  handler: (ctx: RouteContext<unknown, unknown, unknown>) => Promise<RouteResult>;
}

/**
 * The one way to declare an endpoint: the same zod schemas validate requests and feed the
 * OpenAPI document, so the two cannot drift apart.
 */
export function defineRoute<P extends Schema = undefined, Q extends Schema = undefined, B extends Schema = undefined>(
  definition: RouteDefinition<P, Q, B>,
  handler: (ctx: RouteContext<Output<P>, Output<Q>, Output<B>>) => Promise<RouteResult>,
): Route {
  return { definition, handler } as unknown as Route;
}
