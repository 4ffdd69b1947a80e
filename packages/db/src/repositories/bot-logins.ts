import type { Db } from './db-handle';

/** The saved logins a bot holds: the profile its manifest's session names and the credentials its steps fill from. */
export interface BotLogins {
  profileId: string | null;
  /** Distinct, in id order. */
  credentialIds: string[];
}

/**
 * What the bot holds now, in one query. Only recorded steps can name a credential (scripts cannot
 * read one: docs/sessions.md), so the steps and the manifest are all there is to look at. The
 * path into a step is the one findBotsUsingCredential reads.
 */
export async function findBotLogins(db: Db, botId: string): Promise<BotLogins> {
  const [row] = await db.$queryRaw<BotLogins[]>`
    SELECT (SELECT m."sessionProfileId" FROM "Manifest" m WHERE m."botId" = ${botId}) AS "profileId",
           ARRAY(SELECT DISTINCT s.definition -> 'value' ->> 'credential' FROM "RecordedStep" s
                  WHERE s."botId" = ${botId} AND s.definition -> 'value' ->> 'credential' IS NOT NULL
                  ORDER BY 1) AS "credentialIds"`;
  return row ?? { profileId: null, credentialIds: [] };
}
