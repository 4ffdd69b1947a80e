import { createBotfleetClient, getCurrentApiKey, type ApiKey, type Client } from '@botfleet/sdk';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { errorMessage, isUnauthorized } from './api-errors';
import { Layout } from './components/layout';
import { permits, SessionContext, type ConsoleSession } from './console-session';
import { BotPage } from './pages/bot-page';
import { BotVersionPage } from './pages/bot-version-page';
import { BotsPage } from './pages/bots-page';
import { CredentialsPage } from './pages/credentials-page';
import { ProfilePage } from './pages/profile-page';
import { ProfilesPage } from './pages/profiles-page';
import { QueuePage } from './pages/queue-page';
import { RunPage } from './pages/run-page';
import { RunsPage } from './pages/runs-page';
import { SignInPage } from './pages/sign-in-page';
import type { Route } from './routes';
import { forgetKey, readStoredKey, storeKey } from './session';
import { useRoute } from './use-route';

/** Same origin as the API: the SDK's base URL becomes `/api/v1`. */
const clientFor = (apiKey: string): Client => createBotfleetClient({ baseUrl: '', apiKey });

async function whoIs(client: Client): Promise<ApiKey> {
  return (await getCurrentApiKey({ client, throwOnError: true })).data;
}

interface SignedIn {
  client: Client;
  key: ApiKey;
}

export function App() {
  const route = useRoute();
  const [signedIn, setSignedIn] = useState<SignedIn | null>(null);
  const [restoring, setRestoring] = useState(() => readStoredKey() !== null);
  const [notice, setNotice] = useState<string | null>(null);

  // A reload keeps the tab's key: ask the API again what it may do (it may have been revoked).
  useEffect(() => {
    const stored = readStoredKey();
    if (!stored) return;
    const client = clientFor(stored);
    whoIs(client)
      .then((key) => setSignedIn({ client, key }))
      .catch((caught: unknown) => {
        if (isUnauthorized(caught)) forgetKey();
        setNotice(isUnauthorized(caught) ? 'The API no longer accepts this key. Sign in again.' : errorMessage(caught));
      })
      .finally(() => setRestoring(false));
  }, []);

  const session = useMemo<ConsoleSession | null>(() => {
    if (!signedIn) return null;
    return {
      ...signedIn,
      canWrite: permits(signedIn.key.permission, 'write'),
      isAdmin: permits(signedIn.key.permission, 'admin'),
      signOut(reason) {
        forgetKey();
        setSignedIn(null);
        setNotice(reason ?? null);
      },
    };
  }, [signedIn]);

  useEffect(() => {
    document.title = session ? `${titleOf(route)} · botfleet` : 'Sign in · botfleet';
  }, [route, session]);

  if (restoring) return <p class="loading">Loading…</p>;
  if (!session) {
    return (
      <SignInPage
        notice={notice}
        onSignIn={async (apiKey) => {
          const client = clientFor(apiKey);
          try {
            const key = await whoIs(client);
            storeKey(apiKey);
            setNotice(null);
            setSignedIn({ client, key });
          } catch (caught) {
            throw new Error(isUnauthorized(caught) ? 'This key is not valid here.' : errorMessage(caught), {
              cause: caught,
            });
          }
        }}
      />
    );
  }
  return (
    <SessionContext.Provider value={session}>
      <Layout route={route}>
        <Page route={route} />
      </Layout>
    </SessionContext.Provider>
  );
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'bots':
      return <BotsPage />;
    case 'bot':
      // Keyed: another bot is another page, with none of the previous one's state.
      return <BotPage key={route.botId} botId={route.botId} />;
    case 'bot-version':
      return <BotVersionPage key={`${route.botId}/${route.version}`} botId={route.botId} version={route.version} />;
    case 'runs':
      return <RunsPage />;
    case 'run':
      return <RunPage key={route.executionId} executionId={route.executionId} />;
    case 'queue':
      return <QueuePage />;
    case 'profiles':
      return <ProfilesPage />;
    case 'profile':
      return <ProfilePage key={route.profileId} profileId={route.profileId} />;
    case 'credentials':
      return <CredentialsPage />;
    case 'not-found':
      return (
        <>
          <h1>Not found</h1>
          <p>No console page has this address.</p>
        </>
      );
  }
}

function titleOf(route: Route): string {
  switch (route.page) {
    case 'bots':
      return 'Bots';
    case 'bot':
      return 'Bot';
    case 'bot-version':
      return `Bot version ${route.version}`;
    case 'runs':
      return 'Runs';
    case 'run':
      return 'Run';
    case 'queue':
      return 'Queue';
    case 'profiles':
      return 'Profiles';
    case 'profile':
      return 'Profile';
    case 'credentials':
      return 'Credentials';
    case 'not-found':
      return 'Not found';
  }
}
