import { createProfile, listProfiles } from '@botfleet/sdk';
import { ErrorAlert } from '../components/error-alert';
import { Link } from '../components/link';
import { ProfileForm } from '../components/profile-form';
import { useSession } from '../console-session';
import { formatTime } from '../format';
import { collectPages } from '../list-pages';
import { hrefOf, navigate } from '../routes';
import { useLoad } from '../use-load';

/** Browser profiles: the cookies and storage runs start from (docs/sessions.md). */
export function ProfilesPage() {
  const { client, canWrite } = useSession();
  const profiles = useLoad(
    () =>
      collectPages(
        async (cursor) => (await listProfiles({ client, query: { limit: 100, cursor }, throwOnError: true })).data,
      ),
    [],
  );

  return (
    <>
      <h1>Profiles</h1>
      <p class="hint">
        A profile keeps a browser’s cookies, localStorage and IndexedDB between runs: a bot whose manifest names it
        starts logged in. Values are never shown here, only which sites they belong to.
      </p>
      {canWrite && <CreateProfileForm />}
      <ErrorAlert error={profiles.error} />
      {profiles.data === undefined ? (
        <p aria-live="polite">Loading profiles…</p>
      ) : (
        <>
          <p class="count" aria-live="polite">
            {profiles.data.length === 1 ? '1 profile' : `${profiles.data.length} profiles`}
          </p>
          <ul class="cards" data-testid="profiles-list">
            {profiles.data.map((profile) => (
              <li class="card" key={profile.id}>
                <div class="card-title">
                  <Link href={hrefOf({ page: 'profile', profileId: profile.id })}>{profile.name}</Link>
                </div>
                {profile.description && <p class="wrap">{profile.description}</p>}
                <dl class="facts">
                  <div>
                    <dt>Sites</dt>
                    <dd>{profile.origins.length}</dd>
                  </div>
                  <div>
                    <dt>Version</dt>
                    <dd>{profile.version === 0 ? 'empty' : profile.version}</dd>
                  </div>
                  <div>
                    <dt>Updated</dt>
                    <dd>{formatTime(profile.updatedAt)}</dd>
                  </div>
                </dl>
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}

function CreateProfileForm() {
  const { client } = useSession();
  return (
    <section aria-labelledby="new-profile-heading">
      <h2 id="new-profile-heading">New profile</h2>
      <ProfileForm
        idPrefix="profile"
        initial={{ name: '', description: '' }}
        descriptionLabel="Description (optional)"
        submitLabel="Create profile"
        busyLabel="Creating…"
        onSubmit={async ({ name, description }) => {
          const body = { name, ...(description ? { description } : {}) };
          const { data } = await createProfile({ client, body, throwOnError: true });
          navigate(hrefOf({ page: 'profile', profileId: data.id }));
          return null;
        }}
      />
    </section>
  );
}
