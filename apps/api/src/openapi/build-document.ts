import { ErrorEnvelopeSchema } from '@botfleet/core';
import { z } from 'zod';
import type { Route } from '../http/route';

type JsonSchema = Record<string, unknown>;

function toSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
  }) as JsonSchema;
  return rest;
}

function parametersOf(schema: z.ZodType | undefined, location: 'path' | 'query') {
  if (!schema) return [];
  const json = toSchema(schema, 'input');
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, propertySchema]) => ({
    name,
    in: location,
    required: location === 'path' || required.has(name),
    schema: propertySchema,
  }));
}

/** Header parameters carry their description beside the schema, as the document always showed them. */
function headerParametersOf(schema: z.ZodType | undefined) {
  if (!schema) return [];
  const json = toSchema(schema, 'input');
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, { description, ...propertySchema }]) => ({
    name,
    in: 'header',
    required: required.has(name),
    ...(typeof description === 'string' ? { description } : {}),
    schema: propertySchema,
  }));
}

const ERROR_RESPONSES: Record<number, string> = {
  400: 'Validation failed (`validation_error`, `invalid_json`, ...)',
  401: 'Missing, malformed, unknown or revoked API key',
  403: 'The key lacks the permission',
  404: 'No such resource in the caller’s organization',
  429: 'Too many requests for this API key this minute (`Retry-After` says when to retry)',
};

/** OpenAPI 3.1 from the same zod schemas that validate requests: one source of truth. */
export function buildOpenApiDocument(routes: Route[], info: { version: string; serverUrl: string }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { definition: def } of routes) {
    const path = def.path.replace(/:([A-Za-z]+)/g, '{$1}');
    const responses: Record<string, unknown> = {};
    for (const [status, spec] of Object.entries(def.responses)) {
      responses[status] = spec.schema
        ? {
            description: spec.description,
            content: { 'application/json': { schema: toSchema(spec.schema, 'output') } },
          }
        : { description: spec.description };
    }
    if (def.permission) {
      for (const [status, description] of Object.entries(ERROR_RESPONSES)) {
        responses[status] ??= {
          description,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        };
      }
    }
    (paths[path] ??= {})[def.method] = {
      summary: def.summary,
      tags: [def.tag],
      operationId: `${def.method}${path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
      security: def.permission ? [{ bearer: [] }] : [],
      ...(def.permission ? { 'x-permission': def.permission } : {}),
      parameters: [
        ...parametersOf(def.params, 'path'),
        ...parametersOf(def.query, 'query'),
        ...headerParametersOf(def.headers),
      ],
      ...(def.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: toSchema(def.body, 'input') } } } }
        : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'botfleet API',
      version: info.version,
      description:
        'Store browser-automation bots, run them on demand or on a schedule, and receive their data by webhook.',
    },
    servers: [{ url: info.serverUrl }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key: `bf_...`' } },
      schemas: { Error: toSchema(ErrorEnvelopeSchema, 'output') },
    },
    paths,
  };
}
