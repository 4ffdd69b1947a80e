import type { CreatePrismaClientOptions, PrismaClient } from '../client';
import { deleteBotsOfOrganization } from '../repositories/bots';
import { createTestOrganization, createTestPrismaClient } from './factories';

/**
 * Registers beforeAll/afterAll for a test file: a client on the shared test database and an
 * organization of the file's own, handed to `use` once they exist. Afterwards the organization's
 * bots go, and with them its executions, schedules and deliveries, so no pending row is left for
 * a sweeper or scheduler elsewhere to find.
 */
export function useTestOrganization(
  use: (db: PrismaClient, organizationId: string) => void,
  options: CreatePrismaClientOptions = {},
): void {
  let db: PrismaClient | undefined;
  let organizationId: string | undefined;
  beforeAll(async () => {
    db = createTestPrismaClient(options);
    organizationId = (await createTestOrganization(db)).id;
    use(db, organizationId);
  });
  afterAll(async () => {
    if (db && organizationId) await deleteBotsOfOrganization(db, organizationId);
    await db?.$disconnect();
  });
}
