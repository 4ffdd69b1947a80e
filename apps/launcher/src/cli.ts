import {
  effectiveLimits,
  ORGANIZATION_LIMIT_NAMES,
  ORGANIZATION_LIMITS,
  organizationLimitDefaults,
  parseLimitValue,
  PermissionSchema,
  type Env,
  type OrganizationLimitOverrides,
} from '@botfleet/core';
import { createApiKeyWithinLimit, ensureOrganization, setOrganizationLimits, type PrismaClient } from '@botfleet/db';
import { createLogger } from '@botfleet/io';
import { parseArgs } from 'node:util';
import { loadEnv } from './env';
import { openDatabase, prepareDatabase } from './prepare-database';

const LIMIT_OPTIONS = ORGANIZATION_LIMIT_NAMES.map((name) => `[--${ORGANIZATION_LIMITS[name].option} <N|default>]`);
// `botfleet admin ...` from a checkout (scripts/botfleet.ts; `npm run cli -- ...` is its alias), and
// `node apps/launcher/dist/cli.js ...` in the image.
const USAGE = [
  'usage: botfleet admin keys create --org <slug> --permission <read|write|admin> [--name <name>]',
  `       botfleet admin orgs limits --org <slug> ${LIMIT_OPTIONS.join(' ')}`,
].join('\n');

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** A usage error: exit code 2, with the usage. */
function fail(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

/** A request the database refused (unknown organization, a limit reached): exit code 1. */
class CliError extends Error {}

function parseSlug(org: string | undefined): string {
  if (!org || !SLUG.test(org)) fail('--org must be a slug (lowercase letters, digits, -)');
  return org;
}

/** `keys create`: bootstraps an organization (if missing) and an API key; prints one JSON line. */
function keysCreate(args: string[]): (db: PrismaClient, env: Env) => Promise<unknown> {
  const { values } = parseArgs({
    args,
    options: { org: { type: 'string' }, permission: { type: 'string' }, name: { type: 'string' } },
    strict: true,
  });
  const slug = parseSlug(values.org);
  const permission = PermissionSchema.safeParse(values.permission);
  if (!permission.success) fail('--permission must be read, write or admin');
  return async (db, env) => {
    const org = await ensureOrganization(db, slug);
    const created = await createApiKeyWithinLimit(
      db,
      { organizationId: org.id, name: values.name ?? `${permission.data} key`, permission: permission.data },
      env.MAX_API_KEYS_PER_ORG,
    );
    if ('limitReached' in created) {
      throw new CliError(
        `limit_reached: organization ${slug} already has ${created.max} API keys (its maximum); ` +
          'revoke one, or raise it with orgs limits --max-keys',
      );
    }
    return { id: created.row.id, key: created.key, organization: org.slug, permission: created.row.permission };
  };
}

/**
 * `orgs limits`: sets the limits given (a number, or `default` for the env setting) and prints the
 * organization's limits as they now hold, each with whether it is the organization's own or the
 * default. With no limit option it only prints them. The organization must exist.
 */
function orgsLimits(args: string[]): (db: PrismaClient, env: Env) => Promise<unknown> {
  const options: Record<string, { type: 'string' }> = { org: { type: 'string' } };
  for (const name of ORGANIZATION_LIMIT_NAMES) options[ORGANIZATION_LIMITS[name].option] = { type: 'string' };
  const values = parseArgs({ args, options, strict: true }).values as Record<string, string | undefined>;
  const slug = parseSlug(values.org);
  const changes: Partial<OrganizationLimitOverrides> = {};
  for (const name of ORGANIZATION_LIMIT_NAMES) {
    const text = values[ORGANIZATION_LIMITS[name].option];
    if (text === undefined) continue;
    const parsed = parseLimitValue(name, text);
    if (!parsed.ok) fail(parsed.message);
    changes[name] = parsed.value;
  }
  return async (db, env) => {
    const org = await setOrganizationLimits(db, slug, changes);
    if (!org) throw new CliError(`no organization ${slug} (keys create makes one)`);
    const defaults = organizationLimitDefaults({
      maxRunningExecutions: env.MAX_RUNNING_EXECUTIONS_PER_ORG,
      maxPendingExecutions: env.MAX_PENDING_EXECUTIONS_PER_ORG,
      maxApiKeys: env.MAX_API_KEYS_PER_ORG,
      rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
    });
    return { organization: org.slug, limits: effectiveLimits(org.limits, defaults) };
  };
}

const COMMANDS: Record<string, (args: string[]) => (db: PrismaClient, env: Env) => Promise<unknown>> = {
  'keys create': keysCreate,
  'orgs limits': orgsLimits,
};

/** Operator commands on the database; each prints one JSON line. */
async function main(argv: string[]): Promise<void> {
  const [group, command, ...rest] = argv;
  const name = [group, command].filter(Boolean).join(' ');
  const parse = COMMANDS[name];
  if (!parse) fail(`unknown command: ${name || '(none)'}`);
  let run: (db: PrismaClient, env: Env) => Promise<unknown>;
  try {
    run = parse(rest);
  } catch (err) {
    // parseArgs: an unknown option, or one without its value.
    fail(err instanceof Error ? err.message : String(err));
  }

  const env = loadEnv();
  // The CLI may be the first thing run on a fresh machine: make sure the schema is there.
  await prepareDatabase(env, createLogger({ level: 'warn' }), { migrate: env.MIGRATE_ON_START });
  const db = openDatabase(env, 'cli', 1);
  try {
    process.stdout.write(`${JSON.stringify(await run(db, env))}\n`);
  } finally {
    await db.$disconnect();
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
