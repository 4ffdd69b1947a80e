import { getExtract, listExecutions, type Bot, type Client } from '@botfleet/sdk';
import { useSession } from '../console-session';
import { formatTime } from '../format';
import { hrefOf } from '../routes';
import { useLoad } from '../use-load';
import { DataView } from './data-view';
import { ErrorAlert } from './error-alert';
import { Link } from './link';

/** How many of the bot's newest completed runs are searched for the latest one with data (a page's most). */
const RUNS_SEARCHED = 100;

/**
 * The bot's latest extracted data, as GET /bots/{botId}/latest-extract answers it, without its 404
 * when there is none (a failed request on the page): the newest completed runs are listed, and
 * the newest of them with data (the API marks those with `dataChanged`) has its extract read.
 */
async function loadLatestData(client: Client, botId: string) {
  const { data: page } = await listExecutions({
    client,
    path: { botId },
    query: { status: 'completed', limit: RUNS_SEARCHED },
    throwOnError: true,
  });
  const run = page.data.find((execution) => execution.dataChanged !== undefined && execution.dataChanged !== null);
  if (!run) return null;
  const { data } = await getExtract({ client, path: { executionId: run.id }, throwOnError: true });
  return { executionId: run.id, completedAt: run.completedAt, data: data.data };
}

/**
 * The bot's latest extracted data as the data view shows it, with downloads of every run's
 * results. Either kind may extract (an action bot's steps can read what its action produced);
 * a bot that never ran has nothing and is not asked.
 */
export function LatestResults({ bot }: { bot: Bot }) {
  const { client } = useSession();
  const worthAsking = bot.lastExecution !== null;
  const latest = useLoad(
    async () => (worthAsking ? loadLatestData(client, bot.id) : null),
    [bot.id, bot.lastExecution?.id, worthAsking],
  );

  return (
    <section aria-labelledby="latest-results-heading" class="wide">
      <h2 id="latest-results-heading">Latest results</h2>
      <ErrorAlert error={latest.error} />
      {latest.data === undefined && !latest.error && <p aria-live="polite">Loading the results…</p>}
      {latest.data === null && <p>None of its newest completed runs extracted data.</p>}
      {latest.data && (
        <>
          <p class="hint">
            From <Link href={hrefOf({ page: 'run', executionId: latest.data.executionId })}>the run</Link> completed{' '}
            {formatTime(latest.data.completedAt)}.
          </p>
          <DataView
            data={latest.data.data}
            id="latest-data"
            source={{ botId: bot.id }}
            downloadHint="Every completed run’s results, oldest first, each record with its run’s id and time."
          />
        </>
      )}
    </section>
  );
}
