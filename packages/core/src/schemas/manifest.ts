import { z } from 'zod';
import { DATA_PATH_PATTERN } from '../data-path';
import { MAX_VIEWPORT } from '../output-bounds';
import { WEBHOOK_EVENTS, WebhookEventSchema } from '../webhook-events';
import { HttpUrlSchema, IdentifierSchema } from './common';
import { WebhookUrlSchema } from './webhook-url';

const LOCALE = /^[a-z]{2,3}(-[A-Z][a-z]{3})?-([A-Z]{2}|\d{3})$/;

function isIanaZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone.includes('/') || zone === 'UTC' || zone === 'GMT';
  } catch {
    return false;
  }
}

/** When a run keeps its Playwright trace (capabilities.trace). */
export const TraceModeSchema = z.enum(['off', 'onFailure', 'always']);
export type TraceMode = z.infer<typeof TraceModeSchema>;
/** capabilities.trace when the manifest does not say. */
export const DEFAULT_TRACE_MODE: TraceMode = 'onFailure';

export const CapabilitiesSchema = z.strictObject({
  proxy: z.boolean().optional(),
  locale: z.string().regex(LOCALE, 'must be a language-region locale such as en-US').optional(),
  userAgent: z.string().min(1).max(1000).optional(),
  timezone: z.string().max(64).refine(isIanaZone, 'must be an IANA time zone such as Europe/Paris').optional(),
  geolocation: z
    .strictObject({
      latitude: z.number().min(-90).max(90),
      longitude: z.number().min(-180).max(180),
    })
    .optional(),
  adBlocking: z.boolean().optional(),
  downloads: z
    .boolean()
    .optional()
    .describe(
      'Keep files the pages download as artifacts of the run (GET /executions/:id/artifacts); by default downloads are cancelled',
    ),
  trace: TraceModeSchema.optional().describe(
    'Record a Playwright trace (screenshots, DOM snapshots, network, console) and keep it as a trace artifact: off, onFailure (default: a run that completes discards it) or always',
  ),
  har: z
    .boolean()
    .optional()
    .describe("Keep a HAR of the run's requests (no response bodies; secret values redacted) as a har artifact"),
  stepScreenshots: z
    .boolean()
    .optional()
    .describe('Keep a screenshot of the page after every recorded step as a stepScreenshot artifact'),
  resolution: z
    .strictObject({
      width: z.number().int().min(100).max(MAX_VIEWPORT.width),
      height: z.number().int().min(100).max(MAX_VIEWPORT.height),
    })
    .optional(),
  timeout: z.number().int().min(1).max(3600).describe('Maximum execution time in seconds').optional(),
});
export type Capabilities = z.infer<typeof CapabilitiesSchema>;

export const WebhookAuthSchema = z.enum(['none', 'hmac', 'jwt']);
export type WebhookAuth = z.infer<typeof WebhookAuthSchema>;

/** The webhook section as written. Secrets may be omitted (or masked) to keep the stored ones. */
export const WebhookInputSchema = z.strictObject({
  url: WebhookUrlSchema,
  auth: WebhookAuthSchema.default('none'),
  secret: z.string().min(1).max(1000).optional(),
  loginUrl: WebhookUrlSchema.optional(),
  username: z.string().min(1).max(500).optional(),
  password: z.string().min(1).max(1000).optional(),
  dataPath: z.string().max(500).regex(DATA_PATH_PATTERN, 'must be a dot-notation path such as items.0.name').optional(),
  events: z
    .array(WebhookEventSchema)
    .min(1)
    .max(WEBHOOK_EVENTS.length)
    .refine((events) => new Set(events).size === events.length, 'must not name an event twice')
    .optional()
    .describe('Events this webhook receives; default ["execution.completed"]'),
  envelope: z
    .boolean()
    .optional()
    .describe('Send execution.completed as a { type, timestamp, data } envelope too (other events always are)'),
  onlyOnChange: z.boolean().optional().describe('Hold back execution.completed when the data did not change'),
  // Read back on a disabled webhook; accepted and ignored on PUT so a GET can be sent back as is
  // (a PUT of the section is what enables the webhook again).
  disabledAt: z.number().int().nullable().optional().describe('Read-only: when delivery stopped by itself'),
  disabledReason: z.string().max(1000).nullable().optional().describe('Read-only: why delivery stopped'),
});
export type WebhookInput = z.infer<typeof WebhookInputSchema>;

/** The webhook section as stored beside its encrypted secrets (no secret, no disabled state in it). */
export const StoredWebhookSchema = WebhookInputSchema.omit({
  secret: true,
  password: true,
  disabledAt: true,
  disabledReason: true,
}).extend({
  // Rows written before user-info was refused still load (and still deliver); reads mask them.
  url: HttpUrlSchema,
  loginUrl: HttpUrlSchema.optional(),
});
export type StoredWebhook = z.infer<typeof StoredWebhookSchema>;

export const ParameterTypeSchema = z.enum(['string', 'number', 'integer', 'boolean']);
export type ParameterType = z.infer<typeof ParameterTypeSchema>;

export const ParameterDefinitionSchema = z.strictObject({
  name: IdentifierSchema,
  type: ParameterTypeSchema,
  description: z.string().max(1000).optional(),
  required: z.boolean().default(false),
});
export type ParameterDefinition = z.infer<typeof ParameterDefinitionSchema>;

export const ParametersSchema = z
  .array(ParameterDefinitionSchema)
  .max(100)
  .superRefine((params, ctx) => {
    const seen = new Set<string>();
    params.forEach((param, i) => {
      if (seen.has(param.name)) {
        ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `duplicate parameter name '${param.name}'` });
      }
      seen.add(param.name);
    });
  });
