import { getBot, getBotVersion } from '@botfleet/sdk';
import { ErrorAlert } from '../components/error-alert';
import { Link } from '../components/link';
import { ManifestView } from '../components/manifest-view';
import { RestoreVersionButton } from '../components/restore-version-button';
import { useSession } from '../console-session';
import { formatTime } from '../format';
import { hrefOf, navigate } from '../routes';
import { describeStep } from '../step-line';
import { useLoad } from '../use-load';
import { describeChanges } from '../version-changes';

/** Credential names are not read here: a step bound to one names its id. */
const noCredentialNames = () => undefined;

/** One version of a bot as it was: steps, scripts and manifest (secrets masked by the API). */
export function BotVersionPage({ botId, version }: { botId: string; version: number }) {
  const { client } = useSession();
  const loaded = useLoad(async () => {
    const path = { botId, version };
    const [bot, snapshot] = await Promise.all([
      getBot({ client, path: { botId }, throwOnError: true }),
      getBotVersion({ client, path, throwOnError: true }),
    ]);
    return { bot: bot.data, snapshot: snapshot.data };
  }, [botId, version]);

  if (loaded.error) return <ErrorAlert error={loaded.error} />;
  if (!loaded.data) return <p aria-live="polite">Loading the version…</p>;
  const { bot, snapshot } = loaded.data;
  return (
    <>
      <h1>
        {bot.name}: version {snapshot.version} {snapshot.current && <span class="badge badge-active">current</span>}
      </h1>
      <dl class="facts">
        <div>
          <dt>Bot</dt>
          <dd>
            <Link href={hrefOf({ page: 'bot', botId })}>{bot.name}</Link>
          </dd>
        </div>
        <div>
          <dt>Saved</dt>
          <dd>{formatTime(snapshot.createdAt)}</dd>
        </div>
        <div>
          <dt>Changed</dt>
          <dd data-testid="version-changes">{describeChanges(snapshot)}</dd>
        </div>
        {snapshot.restoredFrom !== null && (
          <div>
            <dt>Restored from</dt>
            <dd>
              <Link href={hrefOf({ page: 'bot-version', botId, version: snapshot.restoredFrom })}>
                Version {snapshot.restoredFrom}
              </Link>
            </dd>
          </div>
        )}
      </dl>
      {!snapshot.current && (
        <div class="actions">
          <RestoreVersionButton
            botId={botId}
            version={snapshot.version}
            onRestored={() => navigate(hrefOf({ page: 'bot', botId }))}
          />
        </div>
      )}
      <div class="sections">
        <section aria-labelledby="version-steps-heading">
          <h2 id="version-steps-heading">Steps</h2>
          {snapshot.steps.length === 0 ? (
            <p>No steps: a run opens the target URL and ends.</p>
          ) : (
            <ol class="steps" data-testid="version-steps">
              {snapshot.steps.map((step, index) => (
                <li key={index}>
                  <code>{describeStep(step, noCredentialNames)}</code>
                </li>
              ))}
            </ol>
          )}
        </section>
        <section aria-labelledby="version-scripts-heading">
          <h2 id="version-scripts-heading">Scripts</h2>
          {snapshot.scripts.length === 0 ? (
            <p>None.</p>
          ) : (
            <ul class="plain">
              {snapshot.scripts.map((script) => (
                <li key={script.id}>
                  <details>
                    <summary>
                      <code>{script.name}</code> ({script.origin}
                      {script.active ? ', active' : ''})
                    </summary>
                    <pre class="logs" tabIndex={0}>
                      {script.source}
                    </pre>
                  </details>
                </li>
              ))}
            </ul>
          )}
        </section>
        <section aria-labelledby="version-manifest-heading">
          <h2 id="version-manifest-heading">Manifest</h2>
          <ManifestView manifest={snapshot.manifest} />
        </section>
      </div>
    </>
  );
}
