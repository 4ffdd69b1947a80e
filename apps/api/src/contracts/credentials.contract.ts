import { MAX_CREDENTIAL_ORIGINS, normalizeCredentialOrigin, TimestampSchema, TOTP_ALGORITHMS } from '@botfleet/core';
import { z } from 'zod';

/*
 * Credentials for logins (docs/sessions.md). The password and the TOTP secret are write-only:
 * requests carry them, no response does; reads say whether each is set, and the TOTP's algorithm,
 * digits and period, which are no secret.
 */

const PasswordSchema = z.string().min(1).max(1000).describe('Write-only: stored encrypted, never shown');
const TotpSecretSchema = z
  .string()
  .min(1)
  .max(1000)
  .describe('Write-only: the base32 secret an authenticator app is given (SHA-1, 6 digits, 30 s)');
const OtpauthUriSchema = z
  .string()
  .min(1)
  .max(2000)
  .describe('Write-only: an otpauth://totp/ URI (a QR code’s content); its algorithm, digits and period are used');

/*
 * Where a credential's values may be filled (docs/sessions.md). The shape is checked here, with
 * http:// let through; whether http:// is allowed depends on ALLOW_PRIVATE_NETWORK, which the
 * service checks (services/credentials.ts). Each origin is normalised as it is read.
 */
const CredentialOriginSchema = z
  .string()
  .min(1)
  .max(300)
  .transform((text, ctx) => {
    const { origin, problem } = normalizeCredentialOrigin(text, true);
    if (origin !== undefined) return origin;
    ctx.addIssue({ code: 'custom', message: `origin ${problem}` });
    return z.NEVER;
  });
const CredentialOriginsSchema = z
  .array(CredentialOriginSchema)
  .min(1)
  .max(MAX_CREDENTIAL_ORIGINS)
  .describe(
    'The origins (`https://host[:port]`; `http://` only while ALLOW_PRIVATE_NETWORK=true) whose pages its values ' +
      'may be filled into, matched exactly on scheme, host and port; a fill in a frame at any other origin fails ' +
      'with `credential_origin_mismatch`',
  )
  .meta({ examples: [['https://shop.example', 'https://login.shop.example:8443']] });

/** totpSecret and otpauthUri are two ways to give one TOTP: at most one of them. */
function oneTotpSource(body: { totpSecret?: unknown; otpauthUri?: unknown }, ctx: z.RefinementCtx) {
  if (body.totpSecret !== undefined && body.otpauthUri !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['otpauthUri'], message: 'give totpSecret or otpauthUri, not both' });
  }
}

export const CreateCredentialSchema = z
  .strictObject({
    name: z.string().min(1).max(200).describe('Unique in the organization'),
    origins: CredentialOriginsSchema,
    username: z.string().max(500).optional(),
    password: PasswordSchema.optional(),
    totpSecret: TotpSecretSchema.optional(),
    otpauthUri: OtpauthUriSchema.optional(),
  })
  .superRefine(oneTotpSource);
export type CreateCredentialRequest = z.infer<typeof CreateCredentialSchema>;

export const UpdateCredentialSchema = z
  .strictObject({
    name: z.string().min(1).max(200).optional(),
    origins: CredentialOriginsSchema.optional().describe(
      'Replaces its origins; an admin key only (a write key may not change where a secret goes)',
    ),
    username: z.string().max(500).nullable().optional().describe('null removes it'),
    password: PasswordSchema.nullable().optional().describe('Write-only; a new one replaces it, null removes it'),
    totpSecret: TotpSecretSchema.nullable()
      .optional()
      .describe('Write-only; a new one replaces the TOTP, null removes it'),
    otpauthUri: OtpauthUriSchema.optional().describe('Write-only; replaces the TOTP'),
  })
  .superRefine(oneTotpSource);
export type UpdateCredentialRequest = z.infer<typeof UpdateCredentialSchema>;

export const CredentialTotpSchema = z
  .object({
    algorithm: z.enum(TOTP_ALGORITHMS),
    digits: z.number().int(),
    period: z.number().int().describe('Seconds each code lasts'),
  })
  .meta({ id: 'CredentialTotp' });
export type CredentialTotpView = z.infer<typeof CredentialTotpSchema>;

export const CredentialSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    username: z.string().nullable(),
    origins: z
      .array(z.string())
      .describe('Where its values may be filled; empty for one stored before origins existed (it fills nowhere)'),
    hasPassword: z.boolean(),
    hasTotp: z.boolean(),
    totp: CredentialTotpSchema.nullable().describe('How codes are made (never the secret); null without a TOTP'),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
  })
  .meta({
    id: 'Credential',
    examples: [
      {
        id: 'crd_01kdvdna00q3v6n9r2t8w4y5z7',
        name: 'Shop login',
        username: 'price-watch@example.com',
        origins: ['https://shop.example'],
        hasPassword: true,
        hasTotp: true,
        totp: { algorithm: 'SHA1', digits: 6, period: 30 },
        createdAt: 1767225600000,
        updatedAt: 1767229200000,
      },
    ],
  });
export type CredentialView = z.infer<typeof CredentialSchema>;
