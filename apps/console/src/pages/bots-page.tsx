import { listBots, type ListBotsData } from '@botfleet/sdk';
import { useEffect, useState } from 'preact/hooks';
import { BotRow } from '../components/bot-row';
import { CreateBot } from '../components/create-bot';
import { ErrorAlert } from '../components/error-alert';
import { useSession } from '../console-session';
import { useLoad } from '../use-load';

type Query = NonNullable<ListBotsData['query']>;
type Sort = NonNullable<Query['sort']>;
type Status = NonNullable<Query['status']>;

const PAGE = 20;
/** Typing in the search or tag box asks the API once the person pauses, not once per key. */
const TYPING_PAUSE_MS = 300;

const SORTS: { value: Sort; label: string }[] = [
  { value: '-createdAt', label: 'Newest first' },
  { value: 'createdAt', label: 'Oldest first' },
  { value: 'name', label: 'Name' },
  { value: '-lastRunAt', label: 'Last run' },
];
const STATUSES: Status[] = ['active', 'paused'];

interface BotSearch {
  q: string;
  tag: string;
  status: Status | '';
  sort: Sort;
}

const NO_SEARCH: BotSearch = { q: '', tag: '', status: '', sort: '-createdAt' };

/**
 * The organization's bots, one page per request: the API searches, filters and sorts
 * (GET /bots with q, tag, status, sort), and each bot comes with its last run and schedule.
 * Pages are walked with the API's cursors; the cursors of the pages before are kept for "Previous".
 */
export function BotsPage() {
  const { client, canWrite } = useSession();
  const [search, setSearch] = useState<BotSearch>(NO_SEARCH);
  // What is typed, applied to `search` after a pause.
  const [typed, setTyped] = useState({ q: '', tag: '' });
  // The cursor of each page shown so far (undefined: the first); the last is the page shown.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  // Tags seen on the pages so far, offered while typing in the tag box.
  const [seenTags, setSeenTags] = useState<string[]>([]);

  const change = (next: Partial<BotSearch>) => {
    setSearch((old) => ({ ...old, ...next }));
    setCursors([undefined]);
  };
  useEffect(() => {
    const q = typed.q.trim();
    const tag = typed.tag.trim();
    if (q === search.q && tag === search.tag) return;
    const timer = setTimeout(() => change({ q, tag }), TYPING_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [typed]);

  const bots = useLoad(async () => {
    const query: Query = { limit: PAGE, cursor, sort: search.sort };
    if (search.q !== '') query.q = search.q;
    if (search.tag !== '') query.tag = [search.tag];
    if (search.status !== '') query.status = search.status;
    return (await listBots({ client, query, throwOnError: true })).data;
  }, [search, cursor]);
  useEffect(() => {
    const tags = bots.data?.data.flatMap((bot) => bot.tags) ?? [];
    setSeenTags((old) => (tags.every((tag) => old.includes(tag)) ? old : [...new Set([...old, ...tags])].sort()));
  }, [bots.data]);

  const searching = search.q !== '' || search.tag !== '' || search.status !== '';
  const page = cursors.length;
  const count = bots.data?.data.length ?? 0;

  return (
    <>
      <h1>Bots</h1>
      {canWrite && <CreateBot />}
      <div class="filters" role="search">
        <div class="field">
          <label for="bot-search">Search</label>
          <input
            id="bot-search"
            type="search"
            placeholder="Name, id or URL"
            value={typed.q}
            onInput={(event) => setTyped((old) => ({ ...old, q: event.currentTarget.value }))}
          />
        </div>
        <div class="field">
          <label for="bot-tag">Tag</label>
          <input
            id="bot-tag"
            type="search"
            list="bot-tags"
            placeholder="Any tag"
            value={typed.tag}
            onInput={(event) => setTyped((old) => ({ ...old, tag: event.currentTarget.value }))}
          />
          <datalist id="bot-tags">
            {seenTags.map((name) => (
              <option key={name} value={name} />
            ))}
          </datalist>
        </div>
        <div class="field">
          <label for="bot-status">Status</label>
          <select
            id="bot-status"
            value={search.status}
            onChange={(event) => {
              const value = event.currentTarget.value;
              change({ status: (STATUSES as string[]).includes(value) ? (value as Status) : '' });
            }}
          >
            <option value="">Any</option>
            {STATUSES.map((status) => (
              <option key={status} value={status}>
                {status}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="bot-sort">Sort</label>
          <select
            id="bot-sort"
            value={search.sort}
            onChange={(event) => {
              const value = event.currentTarget.value;
              const sort = SORTS.find((option) => option.value === value);
              if (sort) change({ sort: sort.value });
            }}
          >
            {SORTS.map((sort) => (
              <option key={sort.value} value={sort.value}>
                {sort.label}
              </option>
            ))}
          </select>
        </div>
      </div>
      <ErrorAlert error={bots.error} />
      {bots.data === undefined ? (
        <p aria-live="polite">Loading bots…</p>
      ) : (
        <>
          <p class="count" aria-live="polite">
            {count === 0
              ? searching
                ? 'No bot matches.'
                : 'No bots yet.'
              : `${countText(count, searching)}${page > 1 || bots.data.nextCursor ? `, page ${page}` : ''}`}
          </p>
          <ul class="cards" data-testid="bots-list" aria-busy={bots.loading}>
            {bots.data.data.map((bot) => (
              <BotRow key={bot.id} bot={bot} />
            ))}
          </ul>
          {(page > 1 || bots.data.nextCursor) && (
            <nav class="actions" aria-label="Pages of bots">
              <button
                type="button"
                class="secondary"
                disabled={page === 1 || bots.loading}
                onClick={() => setCursors((old) => old.slice(0, -1))}
              >
                Previous page
              </button>
              <button
                type="button"
                class="secondary"
                disabled={!bots.data.nextCursor || bots.loading}
                onClick={() => {
                  const next = bots.data?.nextCursor;
                  if (next) setCursors((old) => [...old, next]);
                }}
              >
                Next page
              </button>
            </nav>
          )}
        </>
      )}
    </>
  );
}

function countText(count: number, searching: boolean): string {
  if (count === 1) return searching ? '1 bot matches' : '1 bot';
  return searching ? `${count} bots match` : `${count} bots`;
}
