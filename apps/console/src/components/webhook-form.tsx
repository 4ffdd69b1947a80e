import { testWebhook, type Manifest, type TestWebhookResponse } from '@botfleet/sdk';
import { useRef, useState } from 'preact/hooks';
import { useSession } from '../console-session';
import { formatDuration, formatTime } from '../format';
import { useAction } from '../use-action';
import { useManifestSave, type ManifestUpdate } from '../use-manifest-save';
import { ConfirmButton } from './confirm-button';
import { ErrorAlert } from './error-alert';
import { SecretField, secretDraftOf, secretToSend, type SecretDraft } from './secret-field';
import { TextField } from './text-field';

type Webhook = NonNullable<Manifest['webhook']>;
type WebhookInput = NonNullable<ManifestUpdate['webhook']>;
type Auth = Webhook['auth'];
type WebhookEvent = NonNullable<Webhook['events']>[number];
type WebhookTestResult = TestWebhookResponse;

const AUTH_LABELS: Record<Auth, string> = {
  none: 'None: deliveries are not signed',
  hmac: 'HMAC signature (Standard Webhooks) with a shared secret',
  jwt: 'Log in first and send the JWT as a bearer token',
};

const isAuth = (value: string): value is Auth => value in AUTH_LABELS;

/** Every event a webhook may receive (the API's list), in the order the form offers them. */
const EVENT_LABELS: Record<WebhookEvent, string> = {
  'execution.completed': 'a run completes (the body is its data)',
  'execution.failed': 'a run fails',
  'execution.cancelled': 'a run is cancelled',
  'data.changed': "a run's data differs from the run before",
};
const EVENTS = Object.keys(EVENT_LABELS) as WebhookEvent[];
/** What a webhook receives when the manifest names no events. */
const DEFAULT_EVENTS: readonly WebhookEvent[] = ['execution.completed'];

interface Draft {
  url: string;
  auth: Auth;
  secret: SecretDraft;
  loginUrl: string;
  username: string;
  password: SecretDraft;
  dataPath: string;
  events: readonly WebhookEvent[];
  envelope: boolean;
  onlyOnChange: boolean;
}

function draftOf(webhook: Webhook | null): Draft {
  return {
    url: webhook?.url ?? '',
    auth: webhook?.auth ?? 'none',
    secret: secretDraftOf(webhook?.secret),
    loginUrl: webhook?.loginUrl ?? '',
    username: webhook?.username ?? '',
    password: secretDraftOf(webhook?.password),
    dataPath: webhook?.dataPath ?? '',
    events: webhook?.events ?? DEFAULT_EVENTS,
    envelope: webhook?.envelope === true,
    onlyOnChange: webhook?.onlyOnChange === true,
  };
}

/**
 * The section as a PUT takes it. Only what the auth mode uses is sent; a secret left as it is
 * goes unsent, which keeps the stored one, and a mode that uses none drops the stored one.
 */
function build(draft: Draft): WebhookInput {
  const webhook: WebhookInput = {
    url: draft.url.trim(),
    auth: draft.auth,
    events: EVENTS.filter((event) => draft.events.includes(event)),
  };
  if (draft.dataPath.trim()) webhook.dataPath = draft.dataPath.trim();
  if (draft.envelope) webhook.envelope = true;
  if (draft.onlyOnChange) webhook.onlyOnChange = true;
  if (draft.auth === 'hmac') {
    const secret = secretToSend(draft.secret);
    if (secret !== undefined) webhook.secret = secret;
  }
  if (draft.auth === 'jwt') {
    if (draft.loginUrl.trim()) webhook.loginUrl = draft.loginUrl.trim();
    if (draft.username.trim()) webhook.username = draft.username.trim();
    const password = secretToSend(draft.password);
    if (password !== undefined) webhook.password = password;
  }
  return webhook;
}

function describeTest(result: WebhookTestResult): string {
  const answer = result.statusCode === null ? 'no HTTP answer' : `HTTP ${result.statusCode}`;
  const outcome = result.delivered ? 'Delivered' : 'Not delivered';
  return `${outcome}: ${answer} after ${formatDuration(result.durationMs)}${result.error ? `. ${result.error}` : '.'}`;
}

/**
 * Where and how results are delivered; saved as the manifest's `webhook` section alone. Its
 * secrets are write-only (see SecretField); the webhook can be removed, and a test event sent to
 * the saved one shows what the receiver answered.
 */
export function WebhookForm({
  botId,
  webhook,
  onSaved,
}: {
  botId: string;
  webhook: Manifest['webhook'];
  onSaved(): void;
}) {
  const { client } = useSession();
  // The webhook as last stored: the page's copy is read again only after onSaved.
  const [stored, setStored] = useState(webhook);
  const [draft, setDraft] = useState(() => draftOf(webhook));
  const [cleared, setCleared] = useState<string | null>(null);
  const test = useAction();
  const [tested, setTested] = useState<WebhookTestResult | null>(null);
  const authSelect = useRef<HTMLSelectElement>(null);
  const section = useManifestSave(botId, onSaved);
  const { field } = section;
  const update = (change: Partial<Draft>) => {
    setDraft((old) => ({ ...old, ...change }));
    section.edited();
  };
  const saveSection = (body: WebhookInput | null) =>
    section.save({ webhook: body }, (manifest) => {
      setStored(manifest.webhook);
      setDraft(draftOf(manifest.webhook));
      setCleared(null);
      setTested(null);
    });
  /** A stored secret is removed by a mode that uses none: the API keeps only what the mode uses. */
  const clearBy = (what: string) => {
    update({ auth: 'none' });
    setCleared(`Deliveries will not be signed: the stored ${what} is removed when you save.`);
    authSelect.current?.focus();
  };
  const events = field('webhook.events');
  // Said while the mode is still the one the clearing chose.
  const clearedNote = draft.auth === 'none' ? cleared : null;

  return (
    <>
      {stored?.disabledAt && (
        <p class="notice" data-testid="webhook-disabled">
          Delivery stopped on {formatTime(stored.disabledAt)}: {stored.disabledReason ?? 'no reason given'}. Saving the
          webhook starts it again.
        </p>
      )}
      {!stored && <p>No webhook: results are read through the API. Give a URL to have them sent.</p>}
      <form
        class="form"
        aria-labelledby="webhook-heading"
        // The API is the one judge of values (its messages appear at the fields), not the browser.
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          saveSection(build(draft));
        }}
      >
        <TextField
          {...field('webhook.url')}
          label="URL"
          hint="Where deliveries are POSTed: an http(s) address, without user:password@."
          spellcheck={false}
          value={draft.url}
          onInput={(url) => update({ url })}
        />
        <fieldset
          id={events.id}
          aria-invalid={events.error ? true : undefined}
          aria-describedby={events.error ? `${events.id}-error` : undefined}
        >
          <legend>Send when</legend>
          {EVENTS.map((name) => (
            <div class="field" key={name}>
              <label class="inline">
                <input
                  type="checkbox"
                  checked={draft.events.includes(name)}
                  onChange={(event) =>
                    update({
                      events: event.currentTarget.checked
                        ? [...draft.events, name]
                        : draft.events.filter((other) => other !== name),
                    })
                  }
                />
                {/* One flex item: the label is a flex row, which would set the code apart. */}
                <span>
                  {EVENT_LABELS[name]} (<code>{name}</code>)
                </span>
              </label>
            </div>
          ))}
          {events.error && (
            <p id={`${events.id}-error`} class="field-error">
              {events.error}
            </p>
          )}
        </fieldset>
        <TextField
          {...field('webhook.dataPath')}
          label="Data path (optional)"
          hint="Send only this part of the data, such as items.0.name."
          spellcheck={false}
          value={draft.dataPath}
          onInput={(dataPath) => update({ dataPath })}
        />
        <div class="field">
          <label class="inline">
            <input
              type="checkbox"
              id={field('webhook.envelope').id}
              checked={draft.envelope}
              onChange={(event) => update({ envelope: event.currentTarget.checked })}
            />{' '}
            Wrap completed runs in an event envelope too ({'{ type, timestamp, data }'})
          </label>
        </div>
        <div class="field">
          <label class="inline">
            <input
              type="checkbox"
              id={field('webhook.onlyOnChange').id}
              checked={draft.onlyOnChange}
              onChange={(event) => update({ onlyOnChange: event.currentTarget.checked })}
            />{' '}
            Send a completed run only when its data changed
          </label>
        </div>
        <div class="field">
          <label for={field('webhook.auth').id}>Authentication</label>
          <select
            id={field('webhook.auth').id}
            ref={authSelect}
            value={draft.auth}
            aria-describedby={clearedNote ? 'webhook-cleared' : undefined}
            onChange={(event) => {
              const value = event.currentTarget.value;
              if (isAuth(value)) update({ auth: value });
            }}
          >
            {Object.entries(AUTH_LABELS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
          {clearedNote && (
            <p id="webhook-cleared" class="hint" role="status">
              {clearedNote}
            </p>
          )}
        </div>
        {draft.auth === 'hmac' && (
          <SecretField
            {...field('webhook.secret')}
            label="Secret"
            hint="Signs each delivery; a secret starting whsec_ is base64 after the prefix."
            draft={draft.secret}
            onChange={(secret) => update({ secret })}
            onClear={() => clearBy('secret')}
            clearHint="Clearing the secret turns signing off."
          />
        )}
        {draft.auth === 'jwt' && (
          <>
            <TextField
              {...field('webhook.loginUrl')}
              label="Login URL"
              hint="Receives { username, password } as JSON and answers with the token."
              spellcheck={false}
              value={draft.loginUrl}
              onInput={(loginUrl) => update({ loginUrl })}
            />
            <TextField
              {...field('webhook.username')}
              label="Username"
              autocomplete="off"
              spellcheck={false}
              maxLength={500}
              value={draft.username}
              onInput={(username) => update({ username })}
            />
            <SecretField
              {...field('webhook.password')}
              label="Password"
              draft={draft.password}
              onChange={(password) => update({ password })}
              onClear={() => clearBy('password')}
              clearHint="Clearing the password turns the login off."
            />
          </>
        )}
        <div class="actions">
          <button type="submit" disabled={section.busy}>
            {section.busy ? 'Saving…' : 'Save webhook'}
          </button>
          {stored && (
            <ConfirmButton
              label="Remove webhook"
              question="Remove the webhook? Results are then only read through the API."
              confirmLabel="Remove the webhook"
              busy={section.busy}
              onConfirm={() => saveSection(null)}
            />
          )}
          {section.saved && <span role="status">Saved.</span>}
        </div>
        <ErrorAlert error={section.error} />
      </form>
      {stored && (
        <div class="actions">
          <button
            type="button"
            class="secondary"
            disabled={test.busy}
            aria-describedby="webhook-test-hint"
            onClick={() =>
              test.run(async () => {
                setTested(null);
                setTested((await testWebhook({ client, path: { botId }, throwOnError: true })).data);
              })
            }
          >
            {test.busy ? 'Sending…' : 'Send a test event'}
          </button>
          <span id="webhook-test-hint" class="hint">
            A <code>webhook.test</code> event to the saved webhook, signed as saved, never retried.
          </span>
        </div>
      )}
      {tested && (
        <p role="status" class={tested.delivered ? undefined : 'error'} data-testid="webhook-test-result">
          {describeTest(tested)}
        </p>
      )}
      <ErrorAlert error={test.error} />
    </>
  );
}
