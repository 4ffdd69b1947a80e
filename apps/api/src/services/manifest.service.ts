import {
  AppError,
  isIdOf,
  MASKED_SECRET,
  type SecretBox,
  type StoredWebhook,
  type ValidationIssue,
  type WebhookInput,
} from '@botfleet/core';
import { holdProfileOfOrganization, type Db, type StoredManifest } from '@botfleet/db';
import { validationError } from '../http/validation-issues';
import type { ManifestUpdate } from '../contracts/manifest.contract';

/** A new secret seals; an omitted or masked one keeps what is stored. */
function sealOrKeep(box: SecretBox, given: string | undefined, stored: string | null): string | null {
  if (given === undefined || given === MASKED_SECRET) return stored;
  return box.encrypt(given);
}

function mergeWebhook(box: SecretBox, input: WebhookInput, current: StoredManifest) {
  // disabledAt and disabledReason are read-only: accepted so a GET can be sent back, never stored.
  const { secret, password, disabledAt: _disabledAt, disabledReason: _disabledReason, ...rest } = input;
  const webhook: StoredWebhook = rest;
  // Only the secret the auth mode uses is kept, so switching modes leaves no stale secret behind.
  const secretEnc = input.auth === 'hmac' ? sealOrKeep(box, secret, current.webhookSecretEnc) : null;
  const passwordEnc = input.auth === 'jwt' ? sealOrKeep(box, password, current.webhookPasswordEnc) : null;

  const issues: ValidationIssue[] = [];
  if (input.auth === 'hmac' && !secretEnc)
    issues.push({ path: 'webhook.secret', message: "is required when auth is 'hmac'" });
  if (input.auth === 'jwt') {
    if (!input.loginUrl) issues.push({ path: 'webhook.loginUrl', message: "is required when auth is 'jwt'" });
    if (!input.username) issues.push({ path: 'webhook.username', message: "is required when auth is 'jwt'" });
    if (!passwordEnc) issues.push({ path: 'webhook.password', message: "is required when auth is 'jwt'" });
  }
  if (issues.length > 0) {
    throw validationError(issues, 'body');
  }
  return { webhook, secretEnc, passwordEnc };
}

/**
 * Applies a PUT to the stored manifest: each present section replaces the stored one, absent
 * sections stay. No I/O, so it can run inside the locked read-modify-write (modifyManifest).
 */
export function applyManifestUpdate(box: SecretBox, current: StoredManifest, update: ManifestUpdate): StoredManifest {
  const next: StoredManifest = { ...current };
  if (update.capabilities !== undefined) next.capabilities = update.capabilities;
  if (update.parameters !== undefined) next.parameters = update.parameters;
  // The profile was checked by the caller (checkSessionProfile), inside the same transaction.
  if (update.session !== undefined) next.session = update.session;
  // Writing the webhook section (or removing it) is how a disabled webhook is enabled again: the
  // user has seen why it stopped and says where to send now.
  const fresh = { webhookDisabledAt: null, webhookDisabledReason: null, webhookFailingSince: null };
  if (update.webhook === null) {
    Object.assign(next, { webhook: null, webhookSecretEnc: null, webhookPasswordEnc: null, ...fresh });
  } else if (update.webhook !== undefined) {
    const merged = mergeWebhook(box, update.webhook, current);
    Object.assign(next, {
      webhook: merged.webhook,
      webhookSecretEnc: merged.secretEnc,
      webhookPasswordEnc: merged.passwordEnc,
      ...fresh,
    });
  }
  return next;
}

/**
 * A `session` section must name a profile of the caller's organization: else 404, naming it (the
 * same answer for another organization's profile as for none). The profile is held until the
 * manifest's transaction ends, so it cannot be deleted in between.
 */
export async function checkSessionProfile(tx: Db, organizationId: string, update: ManifestUpdate): Promise<void> {
  const profileId = update.session?.profileId;
  if (profileId === undefined) return;
  if (isIdOf('prf', profileId) && (await holdProfileOfOrganization(tx, organizationId, profileId))) return;
  throw new AppError('not_found', `Profile '${profileId}' not found`, [
    { path: 'session.profileId', message: 'is not a profile of this organization' },
  ]);
}
