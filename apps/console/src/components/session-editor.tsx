import { listProfiles, updateManifest, type Manifest } from '@botfleet/sdk';
import { useState } from 'preact/hooks';
import { ATTACH_LOGIN_NOTICE } from '../api-errors';
import { useSession } from '../console-session';
import { collectPages } from '../list-pages';
import { hrefOf } from '../routes';
import { useAction } from '../use-action';
import { useLoad } from '../use-load';
import { ErrorAlert } from './error-alert';
import { Link } from './link';

type Persist = NonNullable<Manifest['session']>['persist'];

const PERSIST_LABELS: Record<Persist, string> = {
  onSuccess: 'after a run that completes',
  always: 'after every run that ends (cancelled ones excepted)',
  never: 'never: runs only start from it',
};

const isPersist = (value: string): value is Persist => value in PERSIST_LABELS;

/**
 * The manifest's `session`: the browser profile runs start from and when they save their state
 * back to it. An admin key picks the profile (or none) and the mode; only `session` is sent, so the
 * other sections of the manifest stay as they are. A profile is a saved login, which only an admin
 * key attaches or changes (docs/sessions.md), so a write key reads the session and why it cannot.
 */
export function SessionEditor({
  botId,
  session,
  onSaved,
}: {
  botId: string;
  session: Manifest['session'];
  onSaved(): void;
}) {
  const { client, canWrite, isAdmin } = useSession();
  const profiles = useLoad(
    () =>
      collectPages(
        async (cursor) => (await listProfiles({ client, query: { limit: 100, cursor }, throwOnError: true })).data,
      ),
    [],
  );
  const [profileId, setProfileId] = useState(session?.profileId ?? '');
  const [persist, setPersist] = useState<Persist>(session?.persist ?? 'onSuccess');
  const save = useAction();
  const current = session ? profiles.data?.find((profile) => profile.id === session.profileId) : undefined;

  return (
    <>
      <h3>Browser session</h3>
      <ErrorAlert error={profiles.error} />
      <p data-testid="session-summary">
        {session ? (
          <>
            Runs start from the profile{' '}
            <Link href={hrefOf({ page: 'profile', profileId: session.profileId })}>
              {current?.name ?? session.profileId}
            </Link>{' '}
            and save their state back {PERSIST_LABELS[session.persist]}.
          </>
        ) : (
          'No profile: every run starts as a fresh browser.'
        )}
      </p>
      {canWrite && !isAdmin && !session && <p class="hint">{ATTACH_LOGIN_NOTICE}</p>}
      {isAdmin && profiles.data && (
        <form
          class="form"
          aria-label="Browser session"
          onSubmit={(event) => {
            event.preventDefault();
            const body = { session: profileId ? { profileId, persist } : null };
            save.run(async () => {
              await updateManifest({ client, path: { botId }, body, throwOnError: true });
              onSaved();
              return 'Saved.';
            });
          }}
        >
          <div class="field">
            <label for="session-profile">Profile</label>
            <select
              id="session-profile"
              value={profileId}
              onChange={(event) => {
                setProfileId(event.currentTarget.value);
                save.setDone(null);
              }}
            >
              <option value="">None (a fresh browser every run)</option>
              {profiles.data.map((profile) => (
                <option key={profile.id} value={profile.id}>
                  {profile.name}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="session-persist">Save the state back</label>
            <select
              id="session-persist"
              value={persist}
              disabled={!profileId}
              onChange={(event) => {
                const value = event.currentTarget.value;
                if (isPersist(value)) setPersist(value);
                save.setDone(null);
              }}
            >
              {Object.entries(PERSIST_LABELS).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </div>
          <div class="actions">
            <button type="submit" disabled={save.busy}>
              {save.busy ? 'Saving…' : 'Save browser session'}
            </button>
            {save.done && <span role="status">{save.done}</span>}
          </div>
          <ErrorAlert error={save.error} />
        </form>
      )}
    </>
  );
}
