import { AppError, isIdOf, type CredentialBinding, type CredentialValue, type StepInput } from '@botfleet/core';
import { findCredentialFields, type Db } from '@botfleet/db';

/*
 * Every write of steps (PUT steps, a recording import, a bot made from a recording) checks the
 * credentials its fill steps name, here, before anything is written: each must be one of the
 * caller's organization (else 404, as for any id of another organization) and hold the field the
 * step fills (else 400). A run would fail on either; the write is where the client can fix it.
 */

/** A credential field a request names, and where in the request (`steps.3.value`, `credentials.0`). */
export interface CredentialReference {
  path: string;
  value: CredentialValue;
}

/** The credential fields steps fill from, each at `steps.<i>.value`. */
export function credentialReferencesOf(steps: readonly StepInput[]): CredentialReference[] {
  return steps.flatMap((step, i) =>
    step.action === 'fill' && typeof step.value !== 'string' ? [{ path: `steps.${i}.value`, value: step.value }] : [],
  );
}

/** The credential fields a recording import binds, each at `credentials.<i>` (where the request names them). */
export function credentialReferencesOfBindings(bindings: readonly CredentialBinding[] = []): CredentialReference[] {
  return bindings.map(({ credential, field }, i) => ({ path: `credentials.${i}`, value: { credential, field } }));
}

/** Throws 404 for the first credential the organization does not have, else 400 for every missing field. */
export async function checkCredentialReferences(
  db: Db,
  organizationId: string,
  references: readonly CredentialReference[],
): Promise<void> {
  if (references.length === 0) return;
  // An id that cannot exist costs no query, as in a path.
  const ids = [...new Set(references.map((r) => r.value.credential).filter((id) => isIdOf('crd', id)))];
  const fields = await findCredentialFields(db, organizationId, ids);
  const unknown = references.find((r) => !fields.has(r.value.credential));
  if (unknown) {
    const id = unknown.value.credential;
    throw new AppError('not_found', `Credential ${id} not found (${unknown.path})`, [
      { path: unknown.path, message: `names credential ${id}, which this organization does not have`, in: 'body' },
    ]);
  }
  const lacking = references.filter((r) => !fields.get(r.value.credential)![r.value.field]);
  if (lacking.length === 0) return;
  const issues = lacking.map((r) => ({
    path: r.path,
    message: `credential ${r.value.credential} has no ${r.value.field}`,
    in: 'body',
  }));
  const [first] = issues;
  const more = issues.length > 1 ? ` (+${issues.length - 1} more)` : '';
  throw new AppError('validation_error', `Invalid request: ${first!.path}: ${first!.message}${more}`, issues);
}

/** checkCredentialReferences for the fill steps of a list of steps. */
export async function checkStepCredentials(db: Db, organizationId: string, steps: readonly StepInput[]) {
  await checkCredentialReferences(db, organizationId, credentialReferencesOf(steps));
}
