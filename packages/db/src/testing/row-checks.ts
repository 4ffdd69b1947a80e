import type { ExecutionStatus } from '../generated/prisma/client';
import type { Db } from '../repositories/db-handle';

/*
 * Reads for tests and benchmarks that check what is stored. Production code reads through the
 * repositories, which answer what a service needs and never a whole delivery row with its body.
 */

/** How many of the organization's executions are in each status (tests and tools; not a hot path). */
export async function countExecutionsByStatus(
  db: Db,
  organizationId: string,
): Promise<Partial<Record<ExecutionStatus, number>>> {
  const groups = await db.execution.groupBy({ by: ['status'], where: { organizationId }, _count: { _all: true } });
  return Object.fromEntries(groups.map((g) => [g.status, g._count._all]));
}

/** A delivery row as stored (its body included): for checks, never for API responses. */
export async function findDelivery(db: Db, deliveryId: string) {
  return db.webhookDelivery.findUnique({ where: { id: deliveryId } });
}
