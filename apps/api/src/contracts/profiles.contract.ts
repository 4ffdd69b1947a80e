import { ProfileOriginSchema, TimestampSchema } from '@botfleet/core';
import { z } from 'zod';

/*
 * Browser profiles (docs/sessions.md). The state itself is core's StorageStateSchema (what a
 * run loads and saves); reads of a profile show its origins with counts, never a cookie or
 * storage value.
 */

export const CreateProfileSchema = z.strictObject({
  name: z.string().min(1).max(200).describe('Unique in the organization'),
  description: z.string().max(1000).optional(),
});

export const UpdateProfileSchema = z.strictObject({
  name: z.string().min(1).max(200).optional(),
  description: z.string().max(1000).nullable().optional(),
});

export const ProfileSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    origins: z.array(ProfileOriginSchema).describe('What the latest state keeps, by origin: counts, never values'),
    version: z.number().int().describe('The latest state’s version: 0 until a run, an import or a reset saves one'),
    lastExecutionId: z
      .string()
      .nullable()
      .describe('The run that saved the latest state; null after an import or reset'),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
  })
  .meta({
    id: 'Profile',
    examples: [
      {
        id: 'prf_01kdvdna00q3v6n9r2t8w4y5z7',
        name: 'Shop account',
        description: 'Logged in as the price-watch user',
        origins: [{ origin: 'https://shop.example', cookies: 3, localStorageKeys: 2, indexedDBDatabases: 0 }],
        version: 4,
        lastExecutionId: 'exe_01kdvh03z0b2c3d4e5f6g7h8j9',
        createdAt: 1767225600000,
        updatedAt: 1767229200000,
      },
    ],
  });
export type ProfileView = z.infer<typeof ProfileSchema>;

export const ProfileVersionSchema = z
  .object({
    version: z.number().int(),
    source: z.enum(['run', 'import', 'reset']).describe('What saved it: a run, an import (PUT state) or a reset'),
    executionId: z.string().nullable().describe('The run that saved it (source run)'),
    origins: z.array(ProfileOriginSchema),
    createdAt: TimestampSchema,
  })
  .meta({ id: 'ProfileVersion' });
export type ProfileVersionView = z.infer<typeof ProfileVersionSchema>;
