import type { Credential } from '@botfleet/db';
import type { CredentialTotpView, CredentialView } from '../contracts/credentials.contract';

// Built field by field: the sealed password and TOTP must never reach a response.
export function toCredentialView(credential: Credential, totp: CredentialTotpView | null): CredentialView {
  return {
    id: credential.id,
    name: credential.name,
    username: credential.username,
    origins: credential.origins,
    hasPassword: credential.passwordEnc !== null,
    hasTotp: credential.totpEnc !== null,
    totp,
    createdAt: credential.createdAt.getTime(),
    updatedAt: credential.updatedAt.getTime(),
  };
}
