import type { ErrorCode } from '@botfleet/core';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { HTTP_STATUS_OF } from '../http/error-status';
import type { Route } from '../http/route';
import { ErrorEnvelopeSchema } from '../contracts/common.contract';

type JsonSchema = Record<string, unknown>;
type AnyDefinition = Route['definition'];

const ERROR_REF = { $ref: '#/components/schemas/Error' };

/**
 * Collects the shared schemas of one document. Schemas with an id in zod's registry (those the
 * contract files, contracts/<resource>.contract.ts, and core name with `.meta({ id })`) land once in
 * components.schemas and every use is a $ref, so generated SDKs get one `Bot` type instead of a
 * new anonymous type per operation. A schema can render differently as a request than
 * as a response (defaults make fields optional in a request): responses are collected first and
 * keep the name, and a request shape that differs is shared as `<id>Input`.
 */
class SchemaCollector {
  readonly shared = new Map<string, JsonSchema>();

  toSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const {
      $schema: _ignored,
      $defs,
      ...rest
    } = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
    const definitions = { ...(($defs ?? {}) as Record<string, JsonSchema>) };
    const ownId = z.globalRegistry.get(schema)?.id;
    // zod answers a schema with an id as a $ref to its own $defs entry; otherwise it is inline.
    if (ownId !== undefined && !('$ref' in rest)) definitions[ownId] = rest;
    const names = new Map<string, string>();
    for (const [id, definition] of Object.entries(definitions)) {
      names.set(id, this.nameFor(id, toComponents(definition, new Map()), io));
    }
    for (const [id, definition] of Object.entries(definitions)) {
      this.shared.set(names.get(id)!, toComponents(definition, names));
    }
    if (ownId !== undefined) return { $ref: `#/components/schemas/${names.get(ownId) ?? ownId}` };
    return toComponents(rest, names);
  }

  private nameFor(id: string, definition: JsonSchema, io: 'input' | 'output'): string {
    const known = this.shared.get(id);
    if (known === undefined || isDeepStrictEqual(known, definition)) return id;
    const inputId = `${id}Input`;
    const knownInput = this.shared.get(inputId);
    if (io === 'input' && (knownInput === undefined || isDeepStrictEqual(knownInput, definition))) return inputId;
    throw new Error(`Schema ${id} renders in two different shapes as a ${io}; give each its own id`);
  }
}

/** zod's `#/$defs/<id>` references as the document's, under the names the collector gave them. */
function toComponents(json: JsonSchema, names: Map<string, string>): JsonSchema {
  const text = JSON.stringify(json).replace(
    /"#\/\$defs\/([^"]+)"/g,
    (_match, id: string) => `"#/components/schemas/${names.get(id) ?? id}"`,
  );
  return JSON.parse(text, (_key, value: unknown) => withoutEmptyAlternative(value)) as JsonSchema;
}

/**
 * `z.unknown().nullable()` renders as `anyOf: [{}, { type: 'null' }]`; the empty schema already
 * admits null (and everything else), and linters rightly call the union illogical.
 */
function withoutEmptyAlternative(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || !('anyOf' in value)) return value;
  const { anyOf, ...rest } = value as { anyOf: unknown };
  const admitsAnything =
    Array.isArray(anyOf) && anyOf.some((s) => typeof s === 'object' && s !== null && Object.keys(s).length === 0);
  return admitsAnything ? rest : value;
}

/** Query, path and header parameters carry their description beside the schema, as readers expect. */
function parametersOf(
  collector: SchemaCollector,
  schema: z.ZodType | undefined,
  location: 'path' | 'query' | 'header',
) {
  if (!schema) return [];
  const json = collector.toSchema(schema, 'input');
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, { description, ...propertySchema }]) => ({
    name,
    in: location,
    required: location === 'path' || required.has(name),
    ...(typeof description === 'string' ? { description } : {}),
    schema: propertySchema,
  }));
}

/** Headers documented once and referenced by every response that carries them. */
const HEADERS = {
  XRequestId: {
    description: 'Identifies the request in botfleet’s logs; echoes the client’s `X-Request-Id` when it sent one',
    schema: { type: 'string' },
  },
  RetryAfter: { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 0 } },
  WWWAuthenticate: { description: 'The authentication scheme to use', schema: { type: 'string', enum: ['Bearer'] } },
} as const;
const header = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });

interface ErrorResponse {
  description: string;
  code: ErrorCode;
  message: string;
  headers?: Record<string, unknown>;
}

/** The error responses every route may share, by the status the error handler gives them. */
const ERROR_RESPONSES: Record<string, ErrorResponse> = {
  BadRequest: {
    description: 'The request is malformed or fails validation (`validation_error`, `invalid_json`, ...)',
    code: 'validation_error',
    message: 'name: Too small: expected string to have >=1 characters',
  },
  Unauthorized: {
    description: 'Missing, malformed, unknown or revoked API key',
    code: 'unauthorized',
    message: 'Missing or invalid API key',
    headers: { 'WWW-Authenticate': header('WWWAuthenticate') },
  },
  Forbidden: {
    description: 'The key lacks the permission',
    code: 'forbidden',
    message: 'This key lacks the write permission',
  },
  NotFound: {
    description: 'No such resource in the caller’s organization',
    code: 'not_found',
    message: 'Bot not found',
  },
  RequestTimeout: {
    description: 'The request body did not arrive in time',
    code: 'request_timeout',
    message: 'The request body did not arrive within 30 s',
  },
  PayloadTooLarge: {
    description: 'The body is too large',
    code: 'payload_too_large',
    message: 'Request body is too large',
  },
  UnsupportedMediaType: {
    description: 'The body is not JSON',
    code: 'unsupported_media_type',
    message: 'Request bodies must be JSON (Content-Type: application/json)',
  },
  RateLimited: {
    description: 'Too many requests for this API key this minute',
    code: 'rate_limited',
    message: 'Rate limit exceeded; retry in 12 s',
    headers: { 'Retry-After': header('RetryAfter') },
  },
  InternalError: {
    description: 'An unexpected error; logged with the request id given in `details`',
    code: 'internal_error',
    message: 'Internal server error',
  },
  Unavailable: {
    description: 'A backing service (database, Redis) is unavailable; retry shortly',
    code: 'unavailable',
    message: 'A backing service is unavailable; retry shortly',
    headers: { 'Retry-After': header('RetryAfter') },
  },
};
type ErrorResponseName = keyof typeof ERROR_RESPONSES;

function errorResponse({ description, code, message, headers }: ErrorResponse) {
  return {
    description,
    headers: { 'X-Request-Id': header('XRequestId'), ...headers },
    content: { 'application/json': { schema: ERROR_REF, example: { error: { code, message } } } },
  };
}

/** The codes of one status, for a route's own error responses (e.g. its 409). */
function codeOf(status: number): ErrorCode {
  const codes = (Object.keys(HTTP_STATUS_OF) as ErrorCode[]).filter((code) => HTTP_STATUS_OF[code] === status);
  return codes[0] ?? 'internal_error';
}

/**
 * The errors a route can answer besides its own, from what the HTTP layer does before and around
 * the handler: body parsing (POST/PUT/PATCH), authentication and rate limiting (keyed routes),
 * permissions (a read key cannot write), input validation, resource loading, and the error
 * handler's 500 and 503.
 */
function standardErrors(def: AnyDefinition): Record<number, ErrorResponseName> {
  const hasBody = def.method === 'post' || def.method === 'put' || def.method === 'patch';
  const errors: Record<number, ErrorResponseName> = {};
  if (hasBody || def.params || def.query || def.body || def.headers) errors[400] = 'BadRequest';
  if (def.permission) errors[401] = 'Unauthorized';
  if (def.permission && def.permission !== 'read') errors[403] = 'Forbidden';
  if (def.params) errors[404] = 'NotFound';
  if (hasBody) Object.assign(errors, { 408: 'RequestTimeout', 413: 'PayloadTooLarge', 415: 'UnsupportedMediaType' });
  if (def.permission) errors[429] = 'RateLimited';
  return { ...errors, 500: 'InternalError', 503: 'Unavailable' };
}

function describeOperation(def: AnyDefinition): string {
  const access = def.permission
    ? `Needs an API key with the \`${def.permission}\` permission.`
    : 'Needs no API key: the URL carries its own signature.';
  return def.description ? `${def.description}\n\n${access}` : access;
}

function operationOf(collector: SchemaCollector, def: AnyDefinition, used: Set<ErrorResponseName>) {
  const responses: Record<string, unknown> = {};
  for (const [status, spec] of Object.entries(def.responses)) {
    const headers = {
      'X-Request-Id': header('XRequestId'),
      ...Object.fromEntries(
        Object.entries(spec.headers ?? {}).map(([name, description]) => [
          name,
          { description, schema: { type: 'string' } },
        ]),
      ),
    };
    if (spec.mediaType) {
      const binary = { schema: { type: 'string', format: 'binary' } };
      responses[status] = {
        description: spec.description,
        headers,
        content: {
          [spec.mediaType]: spec.events ? { schema: collector.toSchema(spec.events, 'output') } : binary,
          ...Object.fromEntries((spec.alsoMediaTypes ?? []).map((type) => [type, binary])),
        },
      };
    } else if (spec.schema) {
      const alternatives = (spec.alsoMediaTypes ?? []).map((type) => [type, { schema: { type: 'string' } }]);
      responses[status] = {
        description: spec.description,
        headers,
        content: {
          'application/json': { schema: collector.toSchema(spec.schema, 'output') },
          ...Object.fromEntries(alternatives),
        },
      };
    } else if (Number(status) >= 400) {
      // A route's own error (its 409, say) still has the envelope.
      responses[status] = errorResponse({
        description: spec.description,
        code: spec.code ?? codeOf(Number(status)),
        message: spec.description,
      });
    } else {
      responses[status] = { description: spec.description, headers };
    }
  }
  for (const [status, name] of Object.entries(standardErrors(def))) {
    if (responses[status]) continue;
    if (status === '413' && def.bodyLimitBytes !== undefined) {
      responses[status] = errorResponse({
        ...ERROR_RESPONSES.PayloadTooLarge!,
        description: `The body is larger than ${def.bodyLimitBytes} bytes`,
      });
      continue;
    }
    used.add(name);
    responses[status] = { $ref: `#/components/responses/${name}` };
  }
  return {
    operationId: def.operationId,
    summary: def.summary,
    description: describeOperation(def),
    tags: [def.tag],
    security: def.permission ? [{ bearer: [] }] : [],
    ...(def.permission ? { 'x-permission': def.permission } : {}),
    parameters: [
      ...parametersOf(collector, def.params, 'path'),
      ...parametersOf(collector, def.query, 'query'),
      ...parametersOf(collector, def.headers, 'header'),
    ],
    ...(def.body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: collector.toSchema(def.body, 'input') } },
          },
        }
      : {}),
    responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b))),
  };
}

/** What each tag groups, shown as a section of the reference page. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  Bots: 'A bot is a target URL, recorded steps or a script, a manifest and an optional schedule.',
  Manifest: 'How a bot runs (capabilities), where its data goes (webhook) and which parameters a trigger takes.',
  Schedule: 'Runs of a bot at a fixed interval.',
  Steps: 'The recorded steps a bot runs, and Chrome DevTools Recorder recordings.',
  Scripts: 'The Playwright script generated from the steps, and handwritten ones.',
  Executions: 'Runs of a bot: trigger, follow, cancel.',
  'Execution results': 'What a run produced: step outputs, extracted data, failures, logs and screenshots.',
  Webhooks: 'Deliveries of extracted data to a bot’s webhook, with every attempt.',
  Profiles:
    'Browser profiles: cookies, localStorage and IndexedDB that survive runs (manifest `session`); ' +
    'reads show origins and counts, never values.',
  Credentials: 'Logins for `fill` steps: username, password and TOTP secret; the password and secret are write-only.',
  'API keys': 'The organization’s API keys.',
  Organization: 'The caller’s organization: the limits the operator set it, and what it uses of them.',
};

export interface DocumentInfo {
  /** The package version (root package.json). */
  version: string;
  /** Where the operations' paths start: relative (`/api/v1`), so one document fits every deployment. */
  serverUrl: string;
}

/** OpenAPI 3.1 from the same zod schemas that validate requests: one source of truth. */
export function buildOpenApiDocument(routes: Route[], info: DocumentInfo) {
  const collector = new SchemaCollector();
  const usedResponses = new Set<ErrorResponseName>();
  // Every error response refers to it, whichever routes exist.
  collector.toSchema(ErrorEnvelopeSchema, 'output');
  // Responses first, so a resource's response shape owns its name (see SchemaCollector).
  for (const { definition: def } of routes) {
    for (const spec of Object.values(def.responses)) if (spec.schema) collector.toSchema(spec.schema, 'output');
  }
  const paths: Record<string, Record<string, unknown>> = {};
  const tags = new Set<string>();
  for (const { definition: def } of routes) {
    const path = def.path.replace(/:([A-Za-z]+)/g, '{$1}');
    tags.add(def.tag);
    (paths[path] ??= {})[def.method] = operationOf(collector, def, usedResponses);
  }
  const sortedKeys = <T>(entries: [string, T][]) => Object.fromEntries(entries.sort(([a], [b]) => a.localeCompare(b)));
  return {
    openapi: '3.1.0',
    info: {
      title: 'botfleet API',
      version: info.version,
      description:
        'Store browser-automation bots, run them on demand or on a schedule, and receive their data by webhook.\n\n' +
        'Every response carries `X-Request-Id`. Errors share one envelope: ' +
        '`{ "error": { "code", "message", "details" } }`.',
      contact: { name: 'botfleet maintainers' },
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: info.serverUrl, description: 'This botfleet deployment' }],
    tags: [...tags].map((name) => ({
      name,
      ...(TAG_DESCRIPTIONS[name] ? { description: TAG_DESCRIPTIONS[name] } : {}),
    })),
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key: `bf_...`' } },
      schemas: sortedKeys([...collector.shared.entries()]),
      headers: HEADERS,
      responses: sortedKeys(
        [...usedResponses].map((name) => [name, errorResponse(ERROR_RESPONSES[name]!)] as [string, unknown]),
      ),
    },
  };
}
