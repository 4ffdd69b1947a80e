import { getBot, getManifest } from '@botfleet/sdk';
import { useState } from 'preact/hooks';
import { ErrorAlert } from '../components/error-alert';
import { LatestResults } from '../components/latest-results';
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
  const { client } = useSession();
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

  if (bot.error) return <ErrorAlert error={bot.error} />;
  if (!bot.data) return <p aria-live="polite">Loading the bot…</p>;
  const { data } = bot;
  return (
    <>
      <h1>
        {data.name} <StatusBadge status={data.status} />
      </h1>
      <dl class="facts">
        <div>
          <dt>Id</dt>
          <dd>
            <code>{data.id}</code>
          </dd>
        </div>
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
          <dt>Version</dt>
          <dd>
            <Link href={hrefOf({ page: 'bot-version', botId, version: data.version })}>Version {data.version}</Link>
          </dd>
        </div>
      </dl>
      {data.description && <p>{data.description}</p>}
      {restored !== null && (
        <p class="notice" role="status">
          Restored: version {restored} is current.
        </p>
      )}
      <div class="sections" key={restores}>
        <StepsSection botId={botId} initialWarnings={importWarningsOfNavigation()} onChanged={changed} />
        <section aria-labelledby="manifest-heading">
          <h2 id="manifest-heading">Manifest</h2>
          <ErrorAlert error={manifest.error} />
          {manifest.data && (
            <>
              <ManifestView manifest={manifest.data} />
              <SessionEditor
                botId={botId}
                session={manifest.data.session}
                onSaved={() => {
                  manifest.reload();
                  changed();
                }}
              />
            </>
          )}
        </section>
        {manifest.data && (
          // Keyed by the parameters: a manifest change rebuilds both forms from the new ones.
          <>
            <ScheduleEditor
              key={`schedule-${manifest.data.parameters.length}`}
              botId={botId}
              parameters={manifest.data.parameters}
            />
            <TriggerForm
              key={`trigger-${manifest.data.parameters.length}`}
              botId={botId}
              parameters={manifest.data.parameters}
            />
          </>
        )}
        <LatestResults bot={data} />
        <VersionsSection
          botId={botId}
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
