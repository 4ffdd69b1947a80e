import { createLogger, PermissionSchema } from '@botfleet/core';
import { createApiKey, createPrismaClient, ensureOrganization } from '@botfleet/db';
import { parseArgs } from 'node:util';
import { loadEnv } from './env';
import { prepareDatabase } from './prepare-database';

const USAGE = 'usage: npm run cli -- keys create --org <slug> --permission <read|write|admin> [--name <name>]';

function fail(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

/** `keys create`: bootstraps an organization (if missing) and an API key; prints one JSON line. */
async function main(argv: string[]): Promise<void> {
  const [group, command, ...rest] = argv;
  if (group !== 'keys' || command !== 'create')
    fail(`unknown command: ${[group, command].filter(Boolean).join(' ') || '(none)'}`);
  const { values } = parseArgs({
    args: rest,
    options: { org: { type: 'string' }, permission: { type: 'string' }, name: { type: 'string' } },
    strict: true,
  });
  if (!values.org || !/^[a-z0-9][a-z0-9-]{0,62}$/.test(values.org))
    fail('--org must be a slug (lowercase letters, digits, -)');
  const permission = PermissionSchema.safeParse(values.permission);
  if (!permission.success) fail('--permission must be read, write or admin');

  const env = loadEnv();
  // The CLI may be the first thing run on a fresh machine: make sure the schema is there.
  await prepareDatabase(env.DATABASE_URL, createLogger({ level: 'warn' }));
  const db = createPrismaClient(env.DATABASE_URL, { poolSize: 1 });
  try {
    const org = await ensureOrganization(db, values.org);
    const { row, key } = await createApiKey(db, {
      organizationId: org.id,
      name: values.name ?? `${permission.data} key`,
      permission: permission.data,
    });
    process.stdout.write(
      `${JSON.stringify({ id: row.id, key, organization: org.slug, permission: row.permission })}\n`,
    );
  } finally {
    await db.$disconnect();
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
