import { z } from 'zod';

/*
 * A credential is a login for steps to fill: a username, a password and a TOTP secret, the last
 * two write-only (contract-3 section 6). Steps never hold the values: a `fill` step's value names
 * the credential and the field, and the worker resolves it when the step runs.
 */

export const CREDENTIAL_FIELDS = ['username', 'password', 'totp'] as const;
export const CredentialFieldSchema = z
  .enum(CREDENTIAL_FIELDS)
  .describe('username, password, or totp: the RFC 6238 code current when the step runs');
export type CredentialField = z.infer<typeof CredentialFieldSchema>;

/** Where a `fill` step takes its value from instead of text. */
export const CredentialValueSchema = z
  .strictObject({
    credential: z.string().min(1).max(64).describe('The credential’s id (crd_...)'),
    field: CredentialFieldSchema,
  })
  .meta({ id: 'CredentialValue' });
export type CredentialValue = z.infer<typeof CredentialValueSchema>;

export const isCredentialValue = (value: unknown): value is CredentialValue =>
  typeof value === 'object' && value !== null && 'credential' in value && 'field' in value;

/** Which fields a stored credential can give. */
export interface CredentialFields {
  username: boolean;
  password: boolean;
  totp: boolean;
}
