import { newId, type OrganizationLimitName, type OrganizationLimitOverrides } from '@botfleet/core';
import type { Db } from './db-handle';

/** The organization with this slug, created on first use (CLI bootstrap). */
export async function ensureOrganization(db: Db, slug: string) {
  return db.organization.upsert({
    where: { slug },
    update: {},
    create: { id: newId('org'), slug, name: slug },
  });
}

/** Deletes the organization and, by cascade, its keys, bots, executions and their outputs (benchmark cleanup). */
export async function deleteOrganization(db: Db, organizationId: string) {
  return db.organization.delete({ where: { id: organizationId } });
}

const LIMIT_COLUMNS = {
  maxRunningExecutions: true,
  maxPendingExecutions: true,
  maxApiKeys: true,
  rateLimitPerMinute: true,
} as const satisfies Record<OrganizationLimitName, true>;

/** An organization with the limits the operator gave it (null: the env default). */
export interface OrganizationWithLimits {
  id: string;
  slug: string;
  name: string;
  limits: OrganizationLimitOverrides;
}

type LimitRow = { id: string; slug: string; name: string } & OrganizationLimitOverrides;

function withLimits(row: LimitRow): OrganizationWithLimits {
  const { id, slug, name, ...limits } = row;
  return { id, slug, name, limits };
}

export async function findOrganization(db: Db, organizationId: string): Promise<OrganizationWithLimits | null> {
  const row = await db.organization.findUnique({
    where: { id: organizationId },
    select: { id: true, slug: true, name: true, ...LIMIT_COLUMNS },
  });
  return row ? withLimits(row) : null;
}

/**
 * Sets some of an organization's limits (a number, or null for the env default) and leaves the
 * others as they are; null when no organization has this slug. Operator-only: the CLI calls it,
 * no API route does.
 */
export async function setOrganizationLimits(
  db: Db,
  slug: string,
  changes: Partial<OrganizationLimitOverrides>,
): Promise<OrganizationWithLimits | null> {
  const { count } = await db.organization.updateMany({ where: { slug }, data: changes });
  if (count === 0) return null;
  const row = await db.organization.findUnique({
    where: { slug },
    select: { id: true, slug: true, name: true, ...LIMIT_COLUMNS },
  });
  return row ? withLimits(row) : null;
}

/** What an organization uses of its limits right now. */
export interface OrganizationUsage {
  running: number;
  pending: number;
  /** Unrevoked API keys. */
  apiKeys: number;
}

/** One statement: the in-flight counts come from the (organizationId, status) index. */
export async function organizationUsage(db: Db, organizationId: string): Promise<OrganizationUsage> {
  const rows = await db.$queryRaw<OrganizationUsage[]>`
    SELECT (SELECT count(*) FROM "Execution"
             WHERE "organizationId" = ${organizationId} AND status = 'running')::int AS running,
           (SELECT count(*) FROM "Execution"
             WHERE "organizationId" = ${organizationId} AND status = 'pending')::int AS pending,
           (SELECT count(*) FROM "ApiKey"
             WHERE "organizationId" = ${organizationId} AND "revokedAt" IS NULL)::int AS "apiKeys"`;
  return rows[0] ?? { running: 0, pending: 0, apiKeys: 0 };
}
