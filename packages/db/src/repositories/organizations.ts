import { newId } from '@botfleet/core';
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
