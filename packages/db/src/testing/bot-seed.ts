import { randomBytes } from 'node:crypto';
import type { Db } from '../repositories/db-handle';

/**
 * What seedBots writes for bot number i (1 to count), so a test can say what a search should find:
 * - name `Bot 000042`, plus ` needle` when i is a multiple of 1,000 (a rare `q`);
 * - targetUrl `https://shop<i mod 50>.example/item/<i>` (`q=shop` matches every bot);
 * - tags `fleet` (every bot), `tenth` (i multiple of 10), `rare` (i multiple of 1,000);
 * - status `paused` when i is a multiple of 7, else `active`;
 * - createdAt one second older every three bots (ties of three), from `since` back;
 * - lastRunAt null when i is a multiple of 3 (never ran), else one minute older every eight bots
 *   (ties); not tied to the tags or status, whose filters would otherwise skip whole ranges of it.
 */
export const SEEDED_BOTS = { rareName: 'needle', commonUrl: 'shop', tags: ['fleet', 'tenth', 'rare'] } as const;

/**
 * Writes `count` bots of one organization in one INSERT ... SELECT generate_series (test and
 * benchmark set-up: 100,000 bots take seconds, not 100,000 API calls), then ANALYZEs "Bot" as
 * autovacuum would shortly after, so plans see the rows. Ids have newId's shape (md5 hex digits
 * are all in its alphabet). The bots have no manifest, steps or executions: lists do not read them.
 */
export async function seedBots(db: Db, input: { organizationId: string; count: number; since?: Date }): Promise<void> {
  const salt = randomBytes(8).toString('hex');
  const since = input.since ?? new Date();
  await db.$executeRaw`
    INSERT INTO "Bot" (id, "organizationId", name, "targetUrl", tags, status, "createdAt", "lastRunAt", "updatedAt")
    SELECT 'bot_' || substr(md5(${salt} || i::text), 1, 26),
           ${input.organizationId},
           'Bot ' || lpad(i::text, 6, '0') || CASE WHEN i % 1000 = 0 THEN ' needle' ELSE '' END,
           'https://shop' || (i % 50) || '.example/item/' || i,
           ARRAY['fleet']
             || CASE WHEN i % 10 = 0 THEN ARRAY['tenth'] ELSE ARRAY[]::text[] END
             || CASE WHEN i % 1000 = 0 THEN ARRAY['rare'] ELSE ARRAY[]::text[] END,
           (CASE WHEN i % 7 = 0 THEN 'paused' ELSE 'active' END)::"BotStatus",
           ${since}::timestamptz - (i / 3) * interval '1 second',
           CASE WHEN i % 3 = 0 THEN NULL ELSE ${since}::timestamptz - (i / 8) * interval '1 minute' END,
           now()
      FROM generate_series(1, ${input.count}::int) AS i`;
  await db.$executeRaw`ANALYZE "Bot"`;
}
