import { AppError, permits } from '@botfleet/core';
import { findBotLogins, type BotLogins, type Db } from '@botfleet/db';
import type { AuthContext } from '../http/route';
import type { CredentialReference } from './credential-references';

/*
 * Who may change a bot that holds a login (docs/sessions.md, docs/security.md). A bot whose manifest
 * names a profile, or whose steps fill from a credential, opens its pages logged in as someone.
 * Whoever decides what such a bot does (its steps, scripts, manifest or targetUrl) can make it
 * return what those pages show, cookies and localStorage included (a script that returns
 * `document.cookie`): as much as exporting the profile's state, which only an admin key may do.
 * So a key below admin may neither attach a login to a bot nor change a bot that holds one; it
 * still runs, reruns and cancels such a bot and reads its outputs. Every route that changes a
 * bot's definition asks here twice: about the bot as it is (requireAdminToChangeBot, which the
 * botToChange loader calls) and about what the change would attach (requireAdminToAttach).
 */

/** What the error's `details` carry, so a client (the console) can say why without parsing the message. */
export interface LoginForbiddenDetails {
  requires: 'admin';
  /** The bot holds these logins now, or the change would give it them. */
  because: 'bot_uses_login' | 'change_attaches_login';
  logins: BotLogins;
}

/** The logins a change names: a manifest's profile and the credentials of the steps it writes. */
export function loginsNamed(
  profileId: string | null | undefined,
  credentials: readonly CredentialReference[],
): BotLogins {
  const credentialIds = [...new Set(credentials.map((reference) => reference.value.credential))].sort();
  return { profileId: profileId ?? null, credentialIds };
}

function holdsLogin(logins: BotLogins): boolean {
  return logins.profileId !== null || logins.credentialIds.length > 0;
}

/** `profile prf_1 and credentials crd_1, crd_2`: the message names each, so the caller knows what to look at. */
function describeLogins({ profileId, credentialIds }: BotLogins): string {
  const parts: string[] = [];
  if (profileId !== null) parts.push(`profile ${profileId}`);
  if (credentialIds.length > 0) {
    parts.push(`${credentialIds.length === 1 ? 'credential' : 'credentials'} ${credentialIds.join(', ')}`);
  }
  return parts.join(' and ');
}

function refuse(message: string, because: LoginForbiddenDetails['because'], logins: BotLogins): never {
  const details: LoginForbiddenDetails = { requires: 'admin', because, logins };
  throw new AppError('forbidden', message, details);
}

/**
 * Refuses (403) a key below admin a change of the bot's steps, scripts, manifest or targetUrl
 * while the bot holds a login. An admin key costs no query.
 */
export async function requireAdminToChangeBot(db: Db, auth: AuthContext, botId: string): Promise<void> {
  if (permits(auth.permission, 'admin')) return;
  const logins = await findBotLogins(db, botId);
  if (!holdsLogin(logins)) return;
  refuse(`This bot uses ${describeLogins(logins)}; changing it needs an admin key`, 'bot_uses_login', logins);
}

/**
 * Refuses (403) a key below admin a change that would attach a login to a bot, before the profile
 * or credentials are looked up: a write key learns nothing about them from a 404.
 */
export function requireAdminToAttach(auth: AuthContext, logins: BotLogins): void {
  if (permits(auth.permission, 'admin') || !holdsLogin(logins)) return;
  const message = `This change gives the bot ${describeLogins(logins)}; attaching a saved login needs an admin key`;
  refuse(message, 'change_attaches_login', logins);
}
