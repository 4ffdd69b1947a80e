import {
  deleteProfile,
  exportProfileState,
  getProfile,
  importProfileState,
  listProfileVersions,
  resetProfile,
  updateProfile,
  type Profile,
  type ProfileVersion,
} from '@botfleet/sdk';
import { fieldErrorsOf } from '../api-errors';
import { ConfirmButton } from '../components/confirm-button';
import { ErrorAlert } from '../components/error-alert';
import { IdFact } from '../components/id-fact';
import { Link } from '../components/link';
import { OriginsTable } from '../components/origins-table';
import { ProfileForm } from '../components/profile-form';
import { useSession } from '../console-session';
import { formatTime } from '../format';
import { saveJsonFile } from '../json-file';
import { hrefOf, navigate } from '../routes';
import { readStorageStateFile } from '../storage-state-file';
import { useAction } from '../use-action';
import { useLoad } from '../use-load';

const SOURCES: Record<ProfileVersion['source'], string> = {
  run: 'saved by a run',
  import: 'imported',
  reset: 'reset',
};

export function ProfilePage({ profileId }: { profileId: string }) {
  const { client, canWrite, isAdmin } = useSession();
  const profile = useLoad(
    async () => (await getProfile({ client, path: { profileId }, throwOnError: true })).data,
    [profileId],
  );
  const versions = useLoad(
    async () => (await listProfileVersions({ client, path: { profileId }, throwOnError: true })).data.data,
    [profileId],
  );
  const action = useAction();

  if (profile.error) return <ErrorAlert error={profile.error} />;
  if (!profile.data) return <p aria-live="polite">Loading the profile…</p>;
  const { data } = profile;
  const reload = () => {
    profile.reload();
    versions.reload();
  };

  return (
    <>
      <h1>{data.name}</h1>
      {data.description && <p class="wrap">{data.description}</p>}
      <dl class="facts">
        <IdFact id={data.id} />
        <div>
          <dt>Version</dt>
          <dd data-testid="profile-version">{data.version === 0 ? 'empty (never saved)' : data.version}</dd>
        </div>
        <div>
          <dt>Last saved by</dt>
          <dd>
            {data.lastExecutionId ? (
              <Link href={hrefOf({ page: 'run', executionId: data.lastExecutionId })}>
                <code>{data.lastExecutionId}</code>
              </Link>
            ) : (
              'no run'
            )}
          </dd>
        </div>
        <div>
          <dt>Updated</dt>
          <dd>{formatTime(data.updatedAt)}</dd>
        </div>
      </dl>
      {canWrite && (
        <div class="actions">
          <ConfirmButton
            label="Reset"
            question="Empty this profile? Runs then start logged out."
            confirmLabel="Reset the profile"
            busy={action.busy}
            onConfirm={() =>
              action.run(async () => {
                await resetProfile({ client, path: { profileId }, throwOnError: true });
                reload();
                return 'The profile is empty.';
              })
            }
          />
          <ConfirmButton
            label="Delete"
            question="Delete this profile and every saved version?"
            confirmLabel="Delete the profile"
            busy={action.busy}
            onConfirm={() =>
              action.run(async () => {
                await deleteProfile({ client, path: { profileId }, throwOnError: true });
                navigate(hrefOf({ page: 'profiles' }));
              })
            }
          />
          {action.done && <span role="status">{action.done}</span>}
        </div>
      )}
      <ErrorAlert error={action.error} />
      <div class="sections">
        <section aria-labelledby="origins-heading">
          <h2 id="origins-heading">Sites</h2>
          <OriginsTable origins={data.origins} caption="What the latest version keeps, per site" />
        </section>
        <section aria-labelledby="versions-heading">
          <h2 id="versions-heading">Versions</h2>
          <ErrorAlert error={versions.error} />
          {versions.data &&
            (versions.data.length === 0 ? (
              <p>None yet: a run, an import or a reset saves the first.</p>
            ) : (
              <ol class="plain" data-testid="profile-versions">
                {versions.data.map((version) => (
                  <li key={version.version}>
                    Version {version.version}, {SOURCES[version.source]}
                    {version.source === 'run' && version.executionId && (
                      <>
                        {' '}
                        <Link href={hrefOf({ page: 'run', executionId: version.executionId })}>
                          <code>{version.executionId}</code>
                        </Link>
                      </>
                    )}
                    , {formatTime(version.createdAt)}{' '}
                    <span class="hint">
                      ({version.origins.length === 1 ? '1 site' : `${version.origins.length} sites`})
                    </span>
                  </li>
                ))}
              </ol>
            ))}
        </section>
        {canWrite && <RenameForm profile={data} onSaved={reload} />}
        <StateSection profileId={profileId} name={data.name} isAdmin={isAdmin} onImported={reload} />
      </div>
    </>
  );
}

function RenameForm({ profile, onSaved }: { profile: Profile; onSaved(): void }) {
  const { client } = useSession();
  return (
    <section aria-labelledby="rename-heading">
      <h2 id="rename-heading">Name and description</h2>
      <ProfileForm
        idPrefix="rename"
        initial={{ name: profile.name, description: profile.description ?? '' }}
        descriptionLabel="Description"
        submitLabel="Save name"
        busyLabel="Saving…"
        onSubmit={async ({ name, description }) => {
          const body = { name, description: description || null };
          await updateProfile({ client, path: { profileId: profile.id }, body, throwOnError: true });
          onSaved();
          return 'Saved.';
        }}
      />
    </section>
  );
}

interface StateSectionProps {
  profileId: string;
  name: string;
  isAdmin: boolean;
  onImported(): void;
}

/**
 * Import and export of the state itself: it is the login, so the API takes and gives it to admin
 * keys only; other keys are told so rather than shown controls that would answer 403.
 */
function StateSection({ profileId, name, isAdmin, onImported }: StateSectionProps) {
  const { client } = useSession();
  const transfer = useAction();
  // A refused import names each bad field of the file (never its value).
  const problems = fieldErrorsOf(transfer.error);

  return (
    <section aria-labelledby="state-heading">
      <h2 id="state-heading">Browser state</h2>
      {!isAdmin ? (
        <p>
          Importing or exporting the state needs an admin key: the state is the login itself. Your key can see which
          sites it covers, above.
        </p>
      ) : (
        <>
          <div class="field">
            <label for="state-import">Import a storage state</label>
            <p id="state-import-hint" class="hint">
              A Playwright storage state (JSON with cookies and origins), e.g. from <code>context.storageState()</code>{' '}
              after logging in in your own browser. It becomes the next version.
            </p>
            <input
              id="state-import"
              type="file"
              accept=".json,application/json"
              aria-describedby="state-import-hint"
              disabled={transfer.busy}
              onChange={(event) => {
                const input = event.currentTarget;
                const file = input.files?.[0];
                // Choosing the same file again must fire change again.
                input.value = '';
                if (!file) return;
                transfer.run(async () => {
                  const state = await readStorageStateFile(file);
                  const { data } = await importProfileState({
                    client,
                    path: { profileId },
                    body: state,
                    throwOnError: true,
                  });
                  onImported();
                  return `Imported ${file.name} as version ${data.version}.`;
                });
              }}
            />
          </div>
          <div class="actions">
            <button
              type="button"
              class="secondary"
              disabled={transfer.busy}
              onClick={() =>
                transfer.run(async () => {
                  const { data } = await exportProfileState({ client, path: { profileId }, throwOnError: true });
                  const fileName = `${name.replace(/[^\w.-]+/g, '-') || 'profile'}.storage-state.json`;
                  saveJsonFile(fileName, data);
                  return `Downloaded ${fileName}.`;
                })
              }
            >
              Export the state
            </button>
          </div>
          {transfer.busy && <p aria-live="polite">Working…</p>}
          {transfer.done && <p role="status">{transfer.done}</p>}
          <ErrorAlert error={transfer.error} />
          {Object.keys(problems).length > 0 && (
            <ul class="plain" aria-label="What the API refused in the file">
              {Object.entries(problems).map(([path, message]) => (
                <li key={path}>
                  <code>{path}</code> {message}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
