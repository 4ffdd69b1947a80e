import { listBotVersions, type BotVersionSummary } from '@botfleet/sdk';
import { useState } from 'preact/hooks';
import { useSession } from '../console-session';
import { formatTime } from '../format';
import { hrefOf } from '../routes';
import { useLoad } from '../use-load';
import { describeChanges } from '../version-changes';
import { ErrorAlert } from './error-alert';
import { Link } from './link';
import { RestoreVersionButton } from './restore-version-button';

const PAGE = 20;

/**
 * The bot's history: each version of its steps, scripts and manifest, newest first, with what it
 * changed, a link to see it, and (for write keys) a way back to it.
 */
export function VersionsSection({
  botId,
  canChange,
  changes,
  onRestored,
}: {
  botId: string;
  /** Whether the key may change this bot (see the bot page): restoring is a change. */
  canChange: boolean;
  /** Counts the changes the bot page made: each one is read again as a new version. */
  changes: number;
  onRestored(current: number): void;
}) {
  const { client } = useSession();
  const [pages, setPages] = useState(1);
  const versions = useLoad(async () => {
    const rows: BotVersionSummary[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < pages; page++) {
      const { data } = await listBotVersions({
        client,
        path: { botId },
        query: { limit: PAGE, cursor },
        throwOnError: true,
      });
      rows.push(...data.data);
      cursor = data.nextCursor ?? undefined;
      if (!cursor) break;
    }
    return { rows, more: cursor !== undefined };
  }, [botId, pages, changes]);

  return (
    <section aria-labelledby="history-heading">
      <h2 id="history-heading">History</h2>
      <ErrorAlert error={versions.error} />
      {versions.data === undefined ? (
        <p aria-live="polite">Loading versions…</p>
      ) : (
        <ol class="cards" reversed data-testid="bot-versions">
          {versions.data.rows.map((version) => (
            <li class="card" key={version.version}>
              <div class="card-title">
                <Link href={hrefOf({ page: 'bot-version', botId, version: version.version })}>
                  Version {version.version}
                </Link>
                {version.current && <span class="badge badge-active">current</span>}
              </div>
              <p class="wrap">{describeChanges(version)}</p>
              <p class="hint">{formatTime(version.createdAt)}</p>
              {!version.current && (
                <div class="actions">
                  <RestoreVersionButton
                    botId={botId}
                    version={version.version}
                    canChange={canChange}
                    onRestored={onRestored}
                  />
                </div>
              )}
            </li>
          ))}
        </ol>
      )}
      {versions.data?.more && (
        <button type="button" class="secondary" onClick={() => setPages((n) => n + 1)}>
          Load more versions
        </button>
      )}
    </section>
  );
}
