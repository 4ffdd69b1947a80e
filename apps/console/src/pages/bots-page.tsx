import { createBot, listBots, type BotSummary } from '@botfleet/sdk';
import { useState } from 'preact/hooks';
import { BotRow } from '../components/bot-row';
import { ErrorAlert } from '../components/error-alert';
import { RecordingDrop } from '../components/recording-drop';
import { useSession } from '../console-session';
import { hrefOf, navigate } from '../routes';
import { useLoad } from '../use-load';

/** The list endpoint has no search; the console pages through this many bots and filters them. */
const MAX_PAGES = 10;

export function BotsPage() {
  const { client, canWrite } = useSession();
  const [query, setQuery] = useState('');
  const [tag, setTag] = useState('');
  const bots = useLoad(async () => {
    const all: BotSummary[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const { data } = await listBots({ client, query: { limit: 100, cursor }, throwOnError: true });
      all.push(...data.data);
      if (!data.nextCursor) break;
      cursor = data.nextCursor;
    }
    return all;
  }, []);

  const tags = [...new Set((bots.data ?? []).flatMap((bot) => bot.tags))].sort();
  const needle = query.trim().toLowerCase();
  const shown = (bots.data ?? []).filter(
    (bot) =>
      (tag === '' || bot.tags.includes(tag)) &&
      (needle === '' || [bot.name, bot.id, bot.targetUrl].some((text) => text.toLowerCase().includes(needle))),
  );

  return (
    <>
      <h1>Bots</h1>
      {canWrite && (
        <RecordingDrop
          label="Create a bot from a recording"
          hint="Drop a Chrome DevTools Recorder export (JSON) here, or choose the file. Its title and first URL name the bot."
          onRecording={async (recording) => {
            const { data } = await createBot({ client, body: { recording }, throwOnError: true });
            navigate(hrefOf({ page: 'bot', botId: data.id }), { importWarnings: data.warnings ?? [] });
          }}
        />
      )}
      <div class="filters" role="search">
        <div class="field">
          <label for="bot-search">Search</label>
          <input
            id="bot-search"
            type="search"
            placeholder="Name, id or URL"
            value={query}
            onInput={(event) => setQuery(event.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="bot-tag">Tag</label>
          <select id="bot-tag" value={tag} onChange={(event) => setTag(event.currentTarget.value)}>
            <option value="">All tags</option>
            {tags.map((name) => (
              <option key={name} value={name}>
                {name}
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
            {shown.length === bots.data.length ? `${shown.length} bots` : `${shown.length} of ${bots.data.length} bots`}
          </p>
          <ul class="cards">
            {shown.map((bot) => (
              <BotRow key={bot.id} bot={bot} />
            ))}
          </ul>
        </>
      )}
    </>
  );
}
