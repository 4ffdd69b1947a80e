import { getBot, getManifest, listSteps, type Step } from '@botfleet/sdk';
import { useState } from 'preact/hooks';
import { BOT_LOGIN_NOTICE } from '../api-errors';
import { usesSavedLogin } from '../bot-login';
import { BotSettings } from '../components/bot-settings';
import { ErrorAlert } from '../components/error-alert';
import { IdFact } from '../components/id-fact';
import { LatestResults } from '../components/latest-results';
import { ManifestEditor } from '../components/manifest-editor';
import { ManifestView } from '../components/manifest-view';
import { RunsList } from '../components/runs-list';
import { ScheduleEditor } from '../components/schedule-editor';
import { SessionEditor } from '../components/session-editor';
import { StatusBadge } from '../components/status-badge';
import { StepsSection } from '../components/steps-section';
import { TriggerForm } from '../components/trigger-form';
import { VersionsSection } from '../components/versions-section';
import { Link } from '../components/link';
import { useSession } from '../console-session';
import { describeRetry } from '../format';
import { hrefOf } from '../routes';
import { useLoad } from '../use-load';
import { TagList } from '../components/tag-list';

interface ImportWarning {
  recordingStep: number | null;
  message: string;
}

/** Warnings of the import that created this bot, handed over by the bots page in history.state. */
function importWarningsOfNavigation(): ImportWarning[] {
  const state = history.state as { importWarnings?: ImportWarning[] } | null;
  return Array.isArray(state?.importWarnings) ? state.importWarnings : [];
}

export function BotPage({ botId }: { botId: string }) {
  const { client, canWrite, isAdmin } = useSession();
  // A restore replaces the steps, scripts and manifest at once: everything is read again.
  const [restores, setRestores] = useState(0);
  const [restored, setRestored] = useState<number | null>(null);
  // Any change of steps or manifest made here is a new version: the bot and its history are read again.
  const [changes, setChanges] = useState(0);
  const changed = () => setChanges((n) => n + 1);
  const bot = useLoad(
    async () => (await getBot({ client, path: { botId }, throwOnError: true })).data,
    [botId, restores, changes],
  );
  const manifest = useLoad(
    async () => (await getManifest({ client, path: { botId }, throwOnError: true })).data,
    [botId, restores],
  );
  const steps = useLoad(async () => {
    const { data } = await listSteps({ client, path: { botId }, throwOnError: true });
    // Without format=recorder the answer is the botfleet steps.
    return 'data' in data ? (data.data as Step[]) : [];
  }, [botId, restores]);
  // A bot that holds a saved login is changed by admin keys only (docs/sessions.md): a write key
  // gets its editors once both reads show it holds none, and the reason otherwise.
  const holdsLogin =
    manifest.data !== undefined && steps.data !== undefined && usesSavedLogin(manifest.data, steps.data);
  const canChange = isAdmin || (canWrite && manifest.data !== undefined && steps.data !== undefined && !holdsLogin);

  const manifestSaved = () => {
    manifest.reload();
    changed();
  };

  if (bot.error) return <ErrorAlert error={bot.error} />;
  if (!bot.data) return <p aria-live="polite">Loading the bot…</p>;
  const { data } = bot;
  return (
    <>
      <h1>
        {data.name} <StatusBadge status={data.status} />
      </h1>
      <dl class="facts">
        <IdFact id={data.id} />
        <div>
          <dt>Target</dt>
          <dd class="wrap">{data.targetUrl}</dd>
        </div>
        <div>
          <dt>Kind</dt>
          <dd>{data.kind}</dd>
        </div>
        <div>
          <dt>Tags</dt>
          <dd>
            <TagList tags={data.tags} />
          </dd>
        </div>
        <div>
          <dt>Retries</dt>
          <dd>{describeRetry(data.retry)}</dd>
        </div>
        <div>
          <dt>Version</dt>
          <dd>
            <Link href={hrefOf({ page: 'bot-version', botId, version: data.version })}>Version {data.version}</Link>
          </dd>
        </div>
      </dl>
      {data.description && <p class="wrap">{data.description}</p>}
      {data.status === 'paused' && (
        <p class="notice">Paused: the schedule does not fire and runs cannot start until the bot is resumed.</p>
      )}
      {canWrite && !isAdmin && holdsLogin && (
        <p class="notice" data-testid="bot-login-notice">
          {BOT_LOGIN_NOTICE}
        </p>
      )}
      {canWrite && <BotSettings bot={data} targetUrlLocked={!canChange} onChanged={bot.reload} />}
      {restored !== null && (
        <p class="notice" role="status">
          Restored: version {restored} is current.
        </p>
      )}
      <div class="sections" key={restores}>
        <StepsSection
          botId={botId}
          steps={steps}
          canChange={canChange}
          initialWarnings={importWarningsOfNavigation()}
          onChanged={changed}
        />
        <section aria-labelledby="manifest-heading">
          <h2 id="manifest-heading">Manifest</h2>
          <ErrorAlert error={manifest.error} />
          {manifest.data && (
            <>
              {canChange ? (
                <ManifestEditor botId={botId} manifest={manifest.data} onSaved={manifestSaved} />
              ) : (
                <ManifestView manifest={manifest.data} />
              )}
              <SessionEditor botId={botId} session={manifest.data.session} onSaved={manifestSaved} />
            </>
          )}
        </section>
        {manifest.data && (
          // Keyed by the parameters: a change of them rebuilds both forms from the new ones. The schedule
          // is read again when the bot is paused or resumed: a paused bot's schedule has no next runs.
          <>
            <ScheduleEditor
              key={`schedule-${data.status}-${JSON.stringify(manifest.data.parameters)}`}
              botId={botId}
              parameters={manifest.data.parameters}
            />
            <TriggerForm
              key={`trigger-${JSON.stringify(manifest.data.parameters)}`}
              botId={botId}
              parameters={manifest.data.parameters}
            />
          </>
        )}
        <LatestResults bot={data} />
        <VersionsSection
          botId={botId}
          canChange={canChange}
          changes={changes}
          onRestored={(current) => {
            setRestored(current);
            setRestores((n) => n + 1);
          }}
        />
        <section aria-labelledby="bot-runs-heading">
          <h2 id="bot-runs-heading">Runs</h2>
          <RunsList botId={botId} />
        </section>
      </div>
    </>
  );
}
