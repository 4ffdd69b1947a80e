import {
  createCredential,
  deleteCredential,
  listCredentials,
  updateCredential,
  type Credential,
  type UpdateCredentialData,
} from '@botfleet/sdk';
import { useState } from 'preact/hooks';
import { fieldErrorsOf } from '../api-errors';
import { ConfirmButton } from '../components/confirm-button';
import { ErrorAlert } from '../components/error-alert';
import { IdFact } from '../components/id-fact';
import { TextField } from '../components/text-field';
import { useSession } from '../console-session';
import { describeTotp, formatTime } from '../format';
import { collectPages } from '../list-pages';
import { useAction } from '../use-action';
import { useLoad } from '../use-load';

/*
 * Logins for steps to fill (docs/sessions.md). The password and the TOTP secret are
 * write-only: the API never sends them, so the page shows whether they are set, and its secret
 * inputs start empty and are emptied again after every save.
 */

export function CredentialsPage() {
  const { client, canWrite } = useSession();
  const credentials = useLoad(
    () =>
      collectPages(
        async (cursor) => (await listCredentials({ client, query: { limit: 100, cursor }, throwOnError: true })).data,
      ),
    [],
  );
  const [done, setDone] = useState<string | null>(null);

  return (
    <>
      <h1>Credentials</h1>
      <p class="hint">
        A credential is a login a bot’s <code>fill</code> steps can use: a username, a password and a TOTP secret for
        two-factor codes. Passwords and secrets are never shown again once saved.
      </p>
      {canWrite && (
        <CreateCredentialForm
          onCreated={(name) => {
            setDone(`Created ${name}.`);
            credentials.reload();
          }}
        />
      )}
      {done && <p role="status">{done}</p>}
      <ErrorAlert error={credentials.error} />
      {credentials.data === undefined ? (
        <p aria-live="polite">Loading credentials…</p>
      ) : (
        <>
          <p class="count" aria-live="polite">
            {credentials.data.length === 1 ? '1 credential' : `${credentials.data.length} credentials`}
          </p>
          <ul class="cards" data-testid="credentials-list">
            {credentials.data.map((credential) => (
              <CredentialCard
                key={credential.id}
                credential={credential}
                onChanged={(message) => {
                  setDone(message);
                  credentials.reload();
                }}
              />
            ))}
          </ul>
        </>
      )}
    </>
  );
}

function CredentialCard({ credential, onChanged }: { credential: Credential; onChanged(message: string): void }) {
  const { client, canWrite } = useSession();
  const [editing, setEditing] = useState(false);
  const remove = useAction();
  const editId = `edit-${credential.id}`;

  return (
    <li class="card">
      <div class="card-title">{credential.name}</div>
      <dl class="facts">
        <IdFact id={credential.id} />
        <div>
          <dt>Username</dt>
          <dd class="wrap">{credential.username ?? 'none'}</dd>
        </div>
        <div>
          <dt>Origins</dt>
          <dd class="wrap">
            {credential.origins.length > 0
              ? credential.origins.join(', ')
              : 'none: fills nowhere until an admin sets them'}
          </dd>
        </div>
        <div>
          <dt>Password</dt>
          <dd>{credential.hasPassword ? 'password set' : 'none'}</dd>
        </div>
        <div>
          <dt>Two-factor</dt>
          <dd>{credential.totp ? describeTotp(credential.totp) : 'no TOTP'}</dd>
        </div>
        <div>
          <dt>Updated</dt>
          <dd>{formatTime(credential.updatedAt)}</dd>
        </div>
      </dl>
      {canWrite && (
        <div class="actions">
          <button
            type="button"
            class="secondary"
            aria-expanded={editing}
            aria-controls={editing ? editId : undefined}
            onClick={() => setEditing((open) => !open)}
          >
            {editing ? 'Close' : 'Edit'}
          </button>
          <ConfirmButton
            label="Delete"
            question={`Delete ${credential.name}? Steps that use it can no longer run.`}
            confirmLabel="Delete the credential"
            busy={remove.busy}
            onConfirm={() =>
              remove.run(async () => {
                await deleteCredential({ client, path: { credentialId: credential.id }, throwOnError: true });
                onChanged(`Deleted ${credential.name}.`);
              })
            }
          />
        </div>
      )}
      <ErrorAlert error={remove.error} />
      {canWrite && editing && (
        <EditCredentialForm
          id={editId}
          credential={credential}
          onSaved={() => {
            setEditing(false);
            onChanged(`Saved ${credential.name}.`);
          }}
        />
      )}
    </li>
  );
}

/** The TOTP inputs: a base32 secret or an otpauth:// URI (which may also set algorithm, digits and period). */
interface TotpInput {
  totpSecret: string;
  otpauthUri: string;
}

/** The body's TOTP part, or an error to show: the API takes one of the two, never both. */
function totpBody(input: TotpInput): { totpSecret?: string; otpauthUri?: string } | Error {
  const secret = input.totpSecret.trim();
  const uri = input.otpauthUri.trim();
  if (secret && uri) return new Error('Give a TOTP secret or an otpauth URI, not both.');
  if (uri) return { otpauthUri: uri };
  if (secret) return { totpSecret: secret };
  return {};
}

/** The origins typed one per line (or separated by spaces or commas), as the API takes them. */
const originsOf = (text: string): string[] => text.split(/[\s,]+/).filter((origin) => origin !== '');

/** The API's complaint about the origins: the list's own, or the first about one of them. */
const originsError = (fieldErrors: Record<string, string>): string | undefined =>
  fieldErrors.origins ?? Object.entries(fieldErrors).find(([path]) => path.startsWith('origins.'))?.[1];

function CreateCredentialForm({ onCreated }: { onCreated(name: string): void }) {
  const { client } = useSession();
  const empty = { name: '', origins: '', username: '', password: '', totpSecret: '', otpauthUri: '' };
  const [draft, setDraft] = useState(empty);
  const create = useAction();
  const fieldErrors = fieldErrorsOf(create.error);
  const update = (change: Partial<typeof empty>) => setDraft((old) => ({ ...old, ...change }));

  return (
    <section aria-labelledby="new-credential-heading">
      <h2 id="new-credential-heading">New credential</h2>
      <form
        class="form"
        autocomplete="off"
        onSubmit={(event) => {
          event.preventDefault();
          const totp = totpBody(draft);
          if (totp instanceof Error) {
            create.setError(totp);
            return;
          }
          const name = draft.name.trim();
          const body = {
            name,
            origins: originsOf(draft.origins),
            ...(draft.username.trim() ? { username: draft.username.trim() } : {}),
            ...(draft.password ? { password: draft.password } : {}),
            ...totp,
          };
          create.run(async () => {
            await createCredential({ client, body, throwOnError: true });
            // The secrets leave the page's state as soon as the API has them.
            setDraft(empty);
            onCreated(name);
          });
        }}
      >
        <CredentialInputs idPrefix="credential" draft={draft} fieldErrors={fieldErrors} onChange={update} />
        <div class="actions">
          <button type="submit" disabled={create.busy}>
            {create.busy ? 'Creating…' : 'Create credential'}
          </button>
        </div>
        <ErrorAlert error={create.error} />
      </form>
    </section>
  );
}

interface CredentialDraft extends TotpInput {
  name: string;
  /** One origin per line. */
  origins: string;
  username: string;
  password: string;
}

interface CredentialInputsProps {
  idPrefix: string;
  draft: CredentialDraft;
  fieldErrors: Record<string, string>;
  /** Labels for an edit: an empty input keeps what is stored. */
  replacing?: boolean;
  /** Shown but not editable: only an admin key may change where a credential is filled. */
  originsReadOnly?: boolean;
  onChange(change: Partial<CredentialDraft>): void;
}

/** The two ways to give a TOTP, masked alike. */
const TOTP_INPUTS: { field: keyof TotpInput; id: string; label: string }[] = [
  { field: 'totpSecret', id: 'totp-secret', label: 'TOTP secret (base32)' },
  { field: 'otpauthUri', id: 'otpauth-uri', label: 'or otpauth:// URI' },
];

/**
 * A credential's inputs. The password and TOTP ones are masked, never filled from the API, and not
 * offered to password managers.
 */
function CredentialInputs({
  idPrefix,
  draft,
  fieldErrors,
  replacing = false,
  originsReadOnly = false,
  onChange,
}: CredentialInputsProps) {
  const keep = replacing ? ' (empty: keep the current one)' : ' (optional)';
  return (
    <>
      <TextField
        id={`${idPrefix}-name`}
        label="Name"
        required
        maxLength={200}
        value={draft.name}
        onInput={(name) => onChange({ name })}
        error={fieldErrors.name}
      />
      <TextField
        id={`${idPrefix}-origins`}
        label="Origins"
        rows={3}
        required
        spellcheck={false}
        readOnly={originsReadOnly}
        value={draft.origins}
        hint={
          originsReadOnly
            ? 'Only an admin key can change the sites this credential is filled into.'
            : 'The sites it may be filled into, one per line: https://host or https://host:port. A fill on any other site fails.'
        }
        onInput={(origins) => onChange({ origins })}
        error={originsError(fieldErrors)}
      />
      <TextField
        id={`${idPrefix}-username`}
        label={replacing ? 'Username' : 'Username (optional)'}
        maxLength={500}
        spellcheck={false}
        value={draft.username}
        onInput={(username) => onChange({ username })}
      />
      <TextField
        id={`${idPrefix}-password`}
        label={replacing ? 'New password' : 'Password'}
        type="password"
        autocomplete="new-password"
        maxLength={1000}
        value={draft.password}
        hint={`Write-only${keep}.`}
        onInput={(password) => onChange({ password })}
        error={fieldErrors.password}
      />
      <fieldset>
        <legend>{replacing ? 'New TOTP for two-factor codes' : 'TOTP for two-factor codes'}</legend>
        <p class="hint">
          Give the base32 secret a site shows under its QR code, or the otpauth:// URI the QR code holds{keep}.
        </p>
        {TOTP_INPUTS.map(({ field, id, label }) => (
          <TextField
            key={field}
            id={`${idPrefix}-${id}`}
            label={label}
            type="password"
            autocomplete="off"
            spellcheck={false}
            value={draft[field]}
            onInput={(value) => onChange({ [field]: value })}
            error={fieldErrors[field]}
          />
        ))}
      </fieldset>
    </>
  );
}

type CredentialPatch = NonNullable<UpdateCredentialData['body']>;

interface EditDraft extends CredentialDraft {
  removePassword: boolean;
  removeTotp: boolean;
}

/** Rename, change the username, or rotate the password or TOTP; only what changed is sent. */
function EditCredentialForm({ id, credential, onSaved }: { id: string; credential: Credential; onSaved(): void }) {
  const { client, isAdmin } = useSession();
  const [draft, setDraft] = useState<EditDraft>({
    name: credential.name,
    origins: credential.origins.join('\n'),
    username: credential.username ?? '',
    password: '',
    totpSecret: '',
    otpauthUri: '',
    removePassword: false,
    removeTotp: false,
  });
  const save = useAction();
  const fieldErrors = fieldErrorsOf(save.error);
  const update = (change: Partial<EditDraft>) => setDraft((old) => ({ ...old, ...change }));
  const prefix = `${id}-field`;

  return (
    <form
      id={id}
      class="form"
      autocomplete="off"
      aria-label={`Edit ${credential.name}`}
      onSubmit={(event) => {
        event.preventDefault();
        const totp = draft.removeTotp ? { totpSecret: null } : totpBody(draft);
        if (totp instanceof Error) {
          save.setError(totp);
          return;
        }
        const body: CredentialPatch = { ...totp };
        const name = draft.name.trim();
        if (name !== credential.name) body.name = name;
        const origins = originsOf(draft.origins);
        if (isAdmin && origins.join('\n') !== credential.origins.join('\n')) body.origins = origins;
        const username = draft.username.trim() || null;
        if (username !== credential.username) body.username = username;
        if (draft.removePassword) body.password = null;
        else if (draft.password) body.password = draft.password;
        save.run(async () => {
          await updateCredential({ client, path: { credentialId: credential.id }, body, throwOnError: true });
          onSaved();
        });
      }}
    >
      <CredentialInputs
        idPrefix={prefix}
        draft={draft}
        fieldErrors={fieldErrors}
        replacing
        originsReadOnly={!isAdmin}
        onChange={update}
      />
      {credential.hasPassword && (
        <RemoveCheckbox
          label="Remove the password"
          checked={draft.removePassword}
          onChange={(removePassword) => update({ removePassword })}
        />
      )}
      {credential.hasTotp && (
        <RemoveCheckbox
          label="Remove the TOTP"
          checked={draft.removeTotp}
          onChange={(removeTotp) => update({ removeTotp })}
        />
      )}
      <div class="actions">
        <button type="submit" disabled={save.busy}>
          {save.busy ? 'Saving…' : 'Save changes'}
        </button>
      </div>
      <ErrorAlert error={save.error} />
    </form>
  );
}

function RemoveCheckbox({
  label,
  checked,
  onChange,
}: {
  label: string;
  checked: boolean;
  onChange(checked: boolean): void;
}) {
  return (
    <label class="inline">
      <input type="checkbox" checked={checked} onChange={(event) => onChange(event.currentTarget.checked)} /> {label}
    </label>
  );
}
