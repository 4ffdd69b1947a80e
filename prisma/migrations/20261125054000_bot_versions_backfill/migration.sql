-- Bot versions (contract-3 section 8): every bot that exists gets version 1, its definition as it
-- stands, in exactly the shape recordBotVersion snapshots (DEFINITION_COLUMNS in
-- packages/db/src/repositories/bot-versions.ts; bot-versions.test.ts runs this file against it).
-- Bot.version and its runs' botVersion are already 1, the columns' default. Bots that already
-- have a version are left alone.
INSERT INTO "BotVersion" ("botId", version, steps, scripts, manifest, changes)
SELECT b.id, 1,
  COALESCE((SELECT jsonb_agg(s.definition || jsonb_build_object('index', s.index) ORDER BY s.index)
              FROM "RecordedStep" s WHERE s."botId" = b.id), '[]'::jsonb) AS steps,
  COALESCE((SELECT jsonb_agg(jsonb_build_object('id', c.id, 'name', c.name, 'language', c.language,
                                                'origin', c.origin::text, 'source', c.source, 'active', c.active)
                             ORDER BY c.id)
              FROM "Script" c WHERE c."botId" = b.id), '[]'::jsonb) AS scripts,
  jsonb_build_object(
    'capabilities', COALESCE(m.capabilities, '{}'::jsonb),
    'webhook', NULLIF(m.webhook, 'null'::jsonb),
    'webhookSecretEnc', m."webhookSecretEnc",
    'webhookPasswordEnc', m."webhookPasswordEnc",
    'parameters', COALESCE(m.parameters, '[]'::jsonb),
    'session', CASE WHEN m."sessionProfileId" IS NULL THEN NULL
                    ELSE jsonb_build_object('profileId', m."sessionProfileId", 'persist', m."sessionPersist"::text) END
  ) AS manifest,
  ARRAY[]::TEXT[]
  FROM "Bot" b LEFT JOIN "Manifest" m ON m."botId" = b.id
 WHERE NOT EXISTS (SELECT 1 FROM "BotVersion" v WHERE v."botId" = b.id);
