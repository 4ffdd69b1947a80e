import { z } from 'zod';
import { TimestampSchema } from './common';

export const PermissionSchema = z.enum(['read', 'write', 'admin']);
export type Permission = z.infer<typeof PermissionSchema>;

const RANK: Record<Permission, number> = { read: 0, write: 1, admin: 2 };
export const permits = (held: Permission, needed: Permission): boolean => RANK[held] >= RANK[needed];

export const CreateApiKeySchema = z.strictObject({
  name: z.string().min(1).max(200),
  permission: PermissionSchema,
});

export const ApiKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  permission: PermissionSchema,
  keyPrefix: z.string().describe('The first characters of the key, to tell keys apart'),
  createdAt: TimestampSchema,
  lastUsedAt: TimestampSchema.nullable(),
});

export const CreatedApiKeySchema = ApiKeySchema.extend({
  key: z.string().describe('The key itself; shown only in this response'),
});
