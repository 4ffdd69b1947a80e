import type { Manifest } from '@botfleet/sdk';
import { useState } from 'preact/hooks';
import { TIME_ZONES } from '../time-zones';
import { useManifestSave } from '../use-manifest-save';
import { ErrorAlert } from './error-alert';
import { TextField } from './text-field';

type Capabilities = Manifest['capabilities'];
type TraceMode = NonNullable<Capabilities['trace']>;
type Switch = 'proxy' | 'adBlocking' | 'downloads' | 'har' | 'stepScreenshots';

/** The on/off capabilities, all off when absent: the form sends only those switched on. */
const SWITCHES: Record<Switch, string> = {
  proxy: 'Route the browser through the proxy pool',
  adBlocking: 'Block ads and trackers',
  downloads: 'Keep downloaded files as artifacts',
  har: "Keep a HAR of the run's requests",
  stepScreenshots: 'Keep a screenshot after every step',
};

const TRACE_LABELS: Record<TraceMode, string> = {
  off: 'never',
  onFailure: 'when a run fails (the default)',
  always: 'for every run',
};

const isTraceMode = (value: string): value is TraceMode => value in TRACE_LABELS;
/** The mode of a manifest that names none: left out when chosen, as a bot made without it has it. */
const DEFAULT_TRACE: TraceMode = 'onFailure';

interface Draft {
  switches: Record<Switch, boolean>;
  trace: TraceMode;
  locale: string;
  timezone: string;
  userAgent: string;
  latitude: string;
  longitude: string;
  width: string;
  height: string;
  timeout: string;
}

const text = (value: number | string | undefined) => (value === undefined ? '' : String(value));

function draftOf(capabilities: Capabilities): Draft {
  return {
    switches: {
      proxy: capabilities.proxy === true,
      adBlocking: capabilities.adBlocking === true,
      downloads: capabilities.downloads === true,
      har: capabilities.har === true,
      stepScreenshots: capabilities.stepScreenshots === true,
    },
    trace: capabilities.trace ?? DEFAULT_TRACE,
    locale: text(capabilities.locale),
    timezone: text(capabilities.timezone),
    userAgent: text(capabilities.userAgent),
    latitude: text(capabilities.geolocation?.latitude),
    longitude: text(capabilities.geolocation?.longitude),
    width: text(capabilities.resolution?.width),
    height: text(capabilities.resolution?.height),
    timeout: text(capabilities.timeout),
  };
}

/** A number input's value as sent: '' is left out; the API judges the range. */
const numberOf = (value: string) => (value.trim() === '' ? undefined : Number(value));

/**
 * The section from the form, or what must be fixed first: a pair (geolocation, resolution) is
 * given whole or not at all, which the API's types cannot be sent half of.
 */
function build(draft: Draft): { capabilities: Capabilities } | { errors: Record<string, string> } {
  const capabilities: Capabilities = {};
  for (const name of Object.keys(SWITCHES) as Switch[]) if (draft.switches[name]) capabilities[name] = true;
  if (draft.trace !== DEFAULT_TRACE) capabilities.trace = draft.trace;
  if (draft.locale.trim()) capabilities.locale = draft.locale.trim();
  if (draft.timezone.trim()) capabilities.timezone = draft.timezone.trim();
  if (draft.userAgent.trim()) capabilities.userAgent = draft.userAgent.trim();
  const timeout = numberOf(draft.timeout);
  if (timeout !== undefined) capabilities.timeout = timeout;

  const errors: Record<string, string> = {};
  const pair = (section: 'geolocation' | 'resolution', a: [string, string], b: [string, string]) => {
    const [first, second] = [numberOf(a[1]), numberOf(b[1])];
    if (first === undefined && second === undefined) return undefined;
    if (first === undefined) errors[`capabilities.${section}.${a[0]}`] = `Give the ${a[0]} too, or clear both`;
    if (second === undefined) errors[`capabilities.${section}.${b[0]}`] = `Give the ${b[0]} too, or clear both`;
    return first === undefined || second === undefined ? undefined : ([first, second] as const);
  };
  const geolocation = pair('geolocation', ['latitude', draft.latitude], ['longitude', draft.longitude]);
  if (geolocation) capabilities.geolocation = { latitude: geolocation[0], longitude: geolocation[1] };
  const resolution = pair('resolution', ['width', draft.width], ['height', draft.height]);
  if (resolution) capabilities.resolution = { width: resolution[0], height: resolution[1] };
  return Object.keys(errors).length > 0 ? { errors } : { capabilities };
}

/** How the bot's browser is set up; saved as the manifest's `capabilities` section alone. */
export function CapabilitiesForm({
  botId,
  capabilities,
  onSaved,
}: {
  botId: string;
  capabilities: Capabilities;
  onSaved(): void;
}) {
  const [draft, setDraft] = useState(() => draftOf(capabilities));
  const section = useManifestSave(botId, onSaved);
  const { field } = section;
  const update = (change: Partial<Draft>) => {
    setDraft((old) => ({ ...old, ...change }));
    section.edited();
  };
  const at = (path: string) => field(`capabilities.${path}`);

  return (
    <form
      class="form"
      aria-labelledby="capabilities-heading"
      // The API is the one judge of values (its messages appear at the fields), not the browser.
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        const built = build(draft);
        if ('errors' in built) section.refuse(built.errors);
        else section.save({ capabilities: built.capabilities }, (manifest) => setDraft(draftOf(manifest.capabilities)));
      }}
    >
      <fieldset>
        <legend>Browser</legend>
        {(Object.entries(SWITCHES) as [Switch, string][]).map(([name, label]) => (
          <div class="field" key={name}>
            <label class="inline">
              <input
                type="checkbox"
                id={at(name).id}
                checked={draft.switches[name]}
                onChange={(event) => update({ switches: { ...draft.switches, [name]: event.currentTarget.checked } })}
              />{' '}
              {label}
            </label>
          </div>
        ))}
        <div class="field">
          <label for={at('trace').id}>Keep a Playwright trace</label>
          <select
            id={at('trace').id}
            value={draft.trace}
            onChange={(event) => {
              const value = event.currentTarget.value;
              if (isTraceMode(value)) update({ trace: value });
            }}
          >
            {Object.entries(TRACE_LABELS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
      </fieldset>
      <TextField
        {...at('locale')}
        label="Locale"
        hint="Language and region, such as en-US; empty: the browser's default."
        spellcheck={false}
        value={draft.locale}
        onInput={(locale) => update({ locale })}
      />
      <TextField
        {...at('timezone')}
        label="Time zone"
        hint="An IANA zone such as Europe/Paris; empty: the worker's zone."
        list="capabilities-time-zones"
        spellcheck={false}
        value={draft.timezone}
        onInput={(timezone) => update({ timezone })}
      />
      <datalist id="capabilities-time-zones">
        {TIME_ZONES.map((zone) => (
          <option key={zone} value={zone} />
        ))}
      </datalist>
      <TextField
        {...at('userAgent')}
        label="User agent"
        hint="Empty: Chromium's own."
        spellcheck={false}
        maxLength={1000}
        value={draft.userAgent}
        onInput={(userAgent) => update({ userAgent })}
      />
      <fieldset>
        <legend>Geolocation (both, or neither)</legend>
        <TextField
          {...at('geolocation.latitude')}
          label="Latitude"
          hint="-90 to 90"
          type="number"
          step="any"
          value={draft.latitude}
          onInput={(latitude) => update({ latitude })}
        />
        <TextField
          {...at('geolocation.longitude')}
          label="Longitude"
          hint="-180 to 180"
          type="number"
          step="any"
          value={draft.longitude}
          onInput={(longitude) => update({ longitude })}
        />
      </fieldset>
      <fieldset>
        <legend>Window size in pixels (both, or neither for the default)</legend>
        <TextField
          {...at('resolution.width')}
          label="Width"
          hint="100 to 7680"
          type="number"
          value={draft.width}
          onInput={(width) => update({ width })}
        />
        <TextField
          {...at('resolution.height')}
          label="Height"
          hint="100 to 4320"
          type="number"
          value={draft.height}
          onInput={(height) => update({ height })}
        />
      </fieldset>
      <TextField
        {...at('timeout')}
        label="Timeout (seconds)"
        hint="1 to 3600; empty: the fleet's default."
        type="number"
        value={draft.timeout}
        onInput={(timeout) => update({ timeout })}
      />
      <div class="actions">
        <button type="submit" disabled={section.busy}>
          {section.busy ? 'Saving…' : 'Save capabilities'}
        </button>
        {section.saved && <span role="status">Saved.</span>}
      </div>
      <ErrorAlert error={section.error} />
    </form>
  );
}
