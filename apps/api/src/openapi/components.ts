import {
  ApiKeySchema,
  BotDetailSchema,
  BotSummarySchema,
  CreatedApiKeySchema,
  ErrorEnvelopeSchema,
  ExecutionSchema,
  ExecutionStatusSchema,
  FailureSchema,
  LogEntrySchema,
  ManifestSchema,
  ScheduleSchema,
  ScriptSchema,
  StepOutputSchema,
  StepSchema,
} from '@botfleet/core';
import { z } from 'zod';
import { DeliveryAttemptSchema, DeliverySchema } from '../routes/deliveries.schema';
import { QueueOverviewSchema } from '../routes/executions.schema';

/**
 * The resources a client meets again and again, by the name the OpenAPI document gives them: each
 * lands once in `components.schemas` and every use is a `$ref`, so generated SDKs get one `Bot`
 * type instead of a new anonymous type per operation. Naming is the document's concern, so it is
 * declared here rather than on the schemas in @botfleet/core (schemas there that name themselves
 * with `.meta({ id })`, such as `Recording`, are shared the same way).
 */
/*
 * Examples are checked against their schema by openapi-lint.test.ts (Redocly
 * no-invalid-schema-examples): a field made required on a schema needs a value here too.
 */
const COMPONENTS: Record<string, { schema: z.ZodType; examples?: unknown[] }> = {
  Error: {
    schema: ErrorEnvelopeSchema,
    examples: [{ error: { code: 'not_found', message: 'Bot not found' } }],
  },
  BotSummary: { schema: BotSummarySchema },
  Bot: {
    schema: BotDetailSchema,
    examples: [
      {
        id: 'bot_2x4Jf8kQ1mZ7',
        name: 'Price watcher',
        targetUrl: 'https://shop.example/item/42',
        kind: 'extraction',
        status: 'active',
        tags: ['prices'],
        createdAt: 1767225600000,
        description: null,
        retry: { attempts: 0, delaySeconds: 0 },
        updatedAt: 1767225600000,
      },
    ],
  },
  Manifest: { schema: ManifestSchema },
  Step: { schema: StepSchema },
  Schedule: { schema: ScheduleSchema },
  Script: { schema: ScriptSchema },
  ExecutionStatus: { schema: ExecutionStatusSchema },
  Execution: {
    schema: ExecutionSchema,
    examples: [
      {
        id: 'exe_7Hq2Lw9vB3cN',
        botId: 'bot_2x4Jf8kQ1mZ7',
        status: 'completed',
        trigger: 'api',
        params: { sku: '42' },
        attempt: 1,
        createdAt: 1767225600000,
        startedAt: 1767225600150,
        completedAt: 1767225603150,
        duration: 3000,
      },
    ],
  },
  StepOutput: { schema: StepOutputSchema },
  LogEntry: { schema: LogEntrySchema },
  Failure: { schema: FailureSchema },
  Delivery: { schema: DeliverySchema },
  DeliveryAttempt: { schema: DeliveryAttemptSchema },
  ApiKey: { schema: ApiKeySchema },
  CreatedApiKey: { schema: CreatedApiKeySchema },
  QueueOverview: {
    schema: QueueOverviewSchema,
    examples: [
      { pending: 12, running: 3, oldestPendingCreatedAt: 1767225600000, oldestPendingAgeMs: 42000, workers: 4 },
    ],
  },
};

/**
 * Gives each component its id in zod's global registry, which z.toJSONSchema reads: a schema with
 * an id becomes a `$defs` entry and a `$ref`. The metadata a schema already has (its
 * `.describe()`) is kept. Idempotent, so building the document twice names nothing twice.
 */
export function registerComponentSchemas(): void {
  for (const [id, { schema, examples }] of Object.entries(COMPONENTS)) {
    const meta = z.globalRegistry.get(schema);
    if (meta?.id === id) continue;
    if (meta?.id !== undefined) throw new Error(`${id} is already named ${meta.id} in the zod registry`);
    z.globalRegistry.add(schema, { ...meta, id, ...(examples ? { examples } : {}) });
  }
}
