import { notFound } from '@botfleet/core';
import { findExecution, type Db } from '@botfleet/db';

/** The execution, if it belongs to the caller's organization; otherwise a 404 that leaks nothing. */
export async function requireExecution(db: Db, organizationId: string, executionId: string) {
  const execution = await findExecution(db, organizationId, executionId);
  if (!execution) throw notFound('Execution');
  return execution;
}
