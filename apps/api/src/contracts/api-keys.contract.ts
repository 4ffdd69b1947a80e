import { PermissionSchema, TimestampSchema } from '@botfleet/core';
import { z } from 'zod';

export const CreateApiKeySchema = z.strictObject({
  name: z.string().min(1).max(200),
  permission: PermissionSchema,
});

export const ApiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    permission: PermissionSchema,
    keyPrefix: z.string().describe('The first characters of the key, to tell keys apart'),
    createdAt: TimestampSchema,
    lastUsedAt: TimestampSchema.nullable(),
  })
  .meta({ id: 'ApiKey' });
export type ApiKeyView = z.infer<typeof ApiKeySchema>;

export const CreatedApiKeySchema = ApiKeySchema.extend({
  key: z.string().describe('The key itself; shown only in this response'),
}).meta({ id: 'CreatedApiKey' });
export type CreatedApiKeyView = z.infer<typeof CreatedApiKeySchema>;
