import type { ComponentChildren } from 'preact';
import { useSession } from '../console-session';
import { hrefOf, type Route } from '../routes';
import { Link } from './link';

/** The frame of every signed-in page: a skip link, the navigation, who is signed in. */
export function Layout({ route, children }: { route: Route; children: ComponentChildren }) {
  const session = useSession();
  const current = (...pages: Route['page'][]) => (pages.includes(route.page) ? ('page' as const) : undefined);
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="top-bar">
        <span class="brand">botfleet</span>
        <nav aria-label="Main">
          <Link href={hrefOf({ page: 'bots' })} aria-current={current('bots')}>
            Bots
          </Link>
          <Link href={hrefOf({ page: 'runs' })} aria-current={current('runs')}>
            Runs
          </Link>
          <Link href={hrefOf({ page: 'profiles' })} aria-current={current('profiles', 'profile')}>
            Profiles
          </Link>
          <Link href={hrefOf({ page: 'credentials' })} aria-current={current('credentials')}>
            Credentials
          </Link>
          {session.isAdmin && (
            // GET /queue needs an admin key; the page also links to the operator's Bull Board.
            <Link href={hrefOf({ page: 'queue' })} aria-current={current('queue')}>
              Queue
            </Link>
          )}
          <a href="/docs">API reference</a>
        </nav>
        <span class="who">
          <span>
            {session.key.name} <span class="badge badge-key">{session.key.permission}</span>
          </span>
          <button type="button" class="link-button" onClick={() => session.signOut()}>
            Sign out
          </button>
        </span>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
