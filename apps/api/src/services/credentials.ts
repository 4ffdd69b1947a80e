import {
  AppError,
  InvalidTotpError,
  normalizeCredentialOrigin,
  type Permission,
  totpFromSecret,
  totpFromUri,
  type SecretBox,
  type TotpSettings,
} from '@botfleet/core';
import type { CredentialInput } from '@botfleet/db';
import type {
  CreateCredentialRequest,
  CredentialTotpView,
  UpdateCredentialRequest,
} from '../contracts/credentials.contract';

/*
 * The credential's secrets between the request and the row: a password is sealed as it is, a
 * TOTP is read (from a bare secret or an otpauth URI) into its settings, which are sealed as JSON.
 * Nothing here logs or repeats a secret: a refused one is named by its field, with why.
 */

/** The settings of the TOTP a request gives, or a 400 naming the field; undefined when it gives none. */
function totpOf(body: { totpSecret?: string | null; otpauthUri?: string }): TotpSettings | undefined {
  const { otpauthUri, totpSecret } = body;
  if (otpauthUri !== undefined) return readTotp('otpauthUri', () => totpFromUri(otpauthUri));
  if (typeof totpSecret === 'string') return readTotp('totpSecret', () => totpFromSecret(totpSecret));
  return undefined;
}

function readTotp(field: 'otpauthUri' | 'totpSecret', read: () => TotpSettings): TotpSettings {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof InvalidTotpError)) throw error;
    // InvalidTotpError's message never quotes the secret (core/sessions/totp.ts).
    throw new AppError('validation_error', `Invalid request: ${field}: ${error.message}`, [
      { path: field, message: error.message, in: 'body' },
    ]);
  }
}

const sealTotp = (secretBox: SecretBox, settings: TotpSettings) => secretBox.encrypt(JSON.stringify(settings));

/** What the service needs besides the request: the caller's permission and the network setting. */
export interface CredentialWriteContext {
  permission: Permission;
  /** ALLOW_PRIVATE_NETWORK: only then may an origin be http:// (sites on loopback). */
  allowPrivateNetwork: boolean;
}

/**
 * The contract has normalised the origins (http:// included); here http:// is refused unless the
 * private network is open, as every other address a run reaches (docs/security.md), and
 * duplicates are dropped.
 */
function checkedOrigins(origins: string[], context: CredentialWriteContext): string[] {
  origins.forEach((origin, index) => {
    const { problem } = normalizeCredentialOrigin(origin, context.allowPrivateNetwork);
    if (problem === undefined) return;
    const message = `origin ${problem}`;
    throw new AppError('validation_error', `Invalid request: origins.${index}: ${message}`, [
      { path: `origins.${index}`, message, in: 'body' },
    ]);
  });
  return [...new Set(origins)];
}

/** A new credential's row fields, secrets sealed. */
export function sealNewCredential(
  secretBox: SecretBox,
  body: CreateCredentialRequest,
  context: CredentialWriteContext,
): CredentialInput {
  const totp = totpOf(body);
  return {
    name: body.name,
    origins: checkedOrigins(body.origins, context),
    username: body.username ?? null,
    passwordEnc: body.password === undefined ? null : secretBox.encrypt(body.password),
    totpEnc: totp ? sealTotp(secretBox, totp) : null,
  };
}

/**
 * A patch's row fields: what it leaves out stays, null removes, a new secret is sealed. New
 * origins need an admin key: a write key could otherwise send a secret someone else stored to a
 * site of its choosing and read it back there (docs/security.md).
 */
export function sealCredentialPatch(
  secretBox: SecretBox,
  body: UpdateCredentialRequest,
  context: CredentialWriteContext,
): Partial<CredentialInput> {
  if (body.origins !== undefined && context.permission !== 'admin') {
    throw new AppError(
      'forbidden',
      "Changing a credential's origins needs an admin key: they say which sites its password and TOTP codes may be filled into",
    );
  }
  const totp = totpOf(body);
  return {
    ...(body.name === undefined ? {} : { name: body.name }),
    ...(body.origins === undefined ? {} : { origins: checkedOrigins(body.origins, context) }),
    ...(body.username === undefined ? {} : { username: body.username }),
    ...(body.password === undefined
      ? {}
      : { passwordEnc: body.password === null ? null : secretBox.encrypt(body.password) }),
    ...(totp ? { totpEnc: sealTotp(secretBox, totp) } : body.totpSecret === null ? { totpEnc: null } : {}),
  };
}

/** What reads show of a credential's TOTP: how codes are made, never the secret. */
export function totpViewOf(secretBox: SecretBox, totpEnc: string | null): CredentialTotpView | null {
  if (totpEnc === null) return null;
  const { algorithm, digits, period } = JSON.parse(secretBox.decrypt(totpEnc)) as TotpSettings;
  return { algorithm, digits, period };
}

/** A name the organization already gave another credential: 409, as the unique index refused it. */
export const duplicateCredentialName = (name: string): AppError =>
  new AppError('conflict', `A credential named '${name}' already exists`);
