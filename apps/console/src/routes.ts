/** Where the api role serves the console (apps/api/src/console/console.router.ts). */
export const CONSOLE_BASE = '/console';

export type Route =
  | { page: 'bots' }
  | { page: 'bot'; botId: string }
  | { page: 'bot-version'; botId: string; version: number }
  | { page: 'runs' }
  | { page: 'run'; executionId: string }
  | { page: 'queue' }
  | { page: 'profiles' }
  | { page: 'profile'; profileId: string }
  | { page: 'credentials' }
  | { page: 'not-found' };

const ID = '([A-Za-z0-9_-]+)';

/** The page a location path names; paths outside the console's own are "not found". */
export function parseRoute(pathname: string): Route {
  const path = pathname.startsWith(CONSOLE_BASE) ? pathname.slice(CONSOLE_BASE.length) : pathname;
  const trimmed = path.replace(/\/+$/, '');
  if (trimmed === '' || trimmed === '/bots') return { page: 'bots' };
  if (trimmed === '/runs') return { page: 'runs' };
  if (trimmed === '/queue') return { page: 'queue' };
  if (trimmed === '/profiles') return { page: 'profiles' };
  if (trimmed === '/credentials') return { page: 'credentials' };
  const bot = new RegExp(`^/bots/${ID}$`).exec(trimmed);
  if (bot?.[1]) return { page: 'bot', botId: bot[1] };
  const version = new RegExp(`^/bots/${ID}/versions/([1-9][0-9]{0,8})$`).exec(trimmed);
  if (version?.[1] && version[2]) return { page: 'bot-version', botId: version[1], version: Number(version[2]) };
  const run = new RegExp(`^/runs/${ID}$`).exec(trimmed);
  if (run?.[1]) return { page: 'run', executionId: run[1] };
  const profile = new RegExp(`^/profiles/${ID}$`).exec(trimmed);
  if (profile?.[1]) return { page: 'profile', profileId: profile[1] };
  return { page: 'not-found' };
}

export function hrefOf(route: Route): string {
  switch (route.page) {
    case 'bots':
    case 'not-found':
      return `${CONSOLE_BASE}/`;
    case 'bot':
      return `${CONSOLE_BASE}/bots/${encodeURIComponent(route.botId)}`;
    case 'runs':
      return `${CONSOLE_BASE}/runs`;
    case 'bot-version':
      return `${CONSOLE_BASE}/bots/${encodeURIComponent(route.botId)}/versions/${route.version}`;
    case 'run':
      return `${CONSOLE_BASE}/runs/${encodeURIComponent(route.executionId)}`;
    case 'queue':
      return `${CONSOLE_BASE}/queue`;
    case 'profiles':
      return `${CONSOLE_BASE}/profiles`;
    case 'profile':
      return `${CONSOLE_BASE}/profiles/${encodeURIComponent(route.profileId)}`;
    case 'credentials':
      return `${CONSOLE_BASE}/credentials`;
  }
}

/** Fired on window after a pushState, since browsers only fire popstate for back and forward. */
export const NAVIGATE_EVENT = 'botfleet:navigate';

export function navigate(href: string, state: unknown = null): void {
  history.pushState(state, '', href);
  window.dispatchEvent(new Event(NAVIGATE_EVENT));
  window.scrollTo(0, 0);
}
