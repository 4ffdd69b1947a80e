import { getSchedule, setSchedule, type Schedule } from '@botfleet/sdk';
import { useEffect, useState } from 'preact/hooks';
import { fieldErrorsOf } from '../api-errors';
import { useSession } from '../console-session';
import { formatInterval, formatTimeIn } from '../format';
import { buildParams, type FieldValue, type Parameter } from '../params';
import { TIME_ZONES } from '../time-zones';
import { useAction } from '../use-action';
import { useLoad } from '../use-load';
import { ErrorAlert } from './error-alert';
import { ParamFields, valuesOf } from './param-fields';

type Kind = 'interval' | 'cron';

interface Draft {
  kind: Kind;
  interval: string;
  cron: string;
  timezone: string;
  overlap: Schedule['overlap'];
  active: boolean;
  params: Record<string, FieldValue>;
}

function draftOf(schedule: Schedule, parameters: readonly Parameter[]): Draft {
  return {
    kind: schedule.cron ? 'cron' : 'interval',
    interval: schedule.interval ? String(schedule.interval) : '3600',
    cron: schedule.cron ?? '',
    timezone: schedule.timezone || 'UTC',
    overlap: schedule.overlap,
    active: schedule.interval === null && schedule.cron === null ? true : schedule.active,
    params: valuesOf(parameters, schedule.params),
  };
}

/** The schedule with its next runs (as the API computes them); editable with a write key. */
export function ScheduleEditor({ botId, parameters }: { botId: string; parameters: Parameter[] }) {
  const { client, canWrite } = useSession();
  const schedule = useLoad(
    async () => (await getSchedule({ client, path: { botId }, throwOnError: true })).data,
    [botId],
  );
  const [draft, setDraft] = useState<Draft | null>(null);
  const save = useAction();
  const [paramErrors, setParamErrors] = useState<Record<string, string>>({});

  useEffect(() => {
    if (schedule.data && draft === null) setDraft(draftOf(schedule.data, parameters));
  }, [schedule.data, draft, parameters]);

  const current = schedule.data;
  const fieldErrors = fieldErrorsOf(save.error);
  const update = (change: Partial<Draft>) => {
    setDraft((old) => (old ? { ...old, ...change } : old));
    save.setDone(null);
  };

  return (
    <section aria-labelledby="schedule-heading">
      <h2 id="schedule-heading">Schedule</h2>
      <ErrorAlert error={schedule.error} />
      {current && (
        <>
          <p data-testid="schedule-summary">
            {current.interval === null && current.cron === null
              ? 'Not scheduled.'
              : `${current.cron ? `Cron ${current.cron} in ${current.timezone}` : formatInterval(current.interval ?? 0)}, ${
                  current.active ? 'active' : 'paused'
                }.`}
          </p>
          {current.nextRuns.length > 0 && (
            <>
              <h3 id="next-runs-heading">Next runs</h3>
              <ol class="plain" aria-labelledby="next-runs-heading" data-testid="next-runs">
                {current.nextRuns.map((at) => (
                  <li key={at}>
                    <time dateTime={new Date(at).toISOString()}>{formatTimeIn(at, current.timezone)}</time>
                  </li>
                ))}
              </ol>
            </>
          )}
        </>
      )}
      {canWrite && draft && (
        <form
          class="form"
          onSubmit={(event) => {
            event.preventDefault();
            // Scheduled runs take their params from the schedule, checked like a trigger's.
            const built = buildParams(parameters, draft.params);
            setParamErrors(built.errors);
            if (Object.keys(built.errors).length > 0) return;
            const common = { overlap: draft.overlap, active: draft.active, params: built.params };
            const body =
              draft.kind === 'cron'
                ? { cron: draft.cron.trim(), timezone: draft.timezone.trim() || 'UTC', ...common }
                : { interval: Number(draft.interval), ...common };
            save.run(async () => {
              await setSchedule({ client, path: { botId }, body, throwOnError: true });
              schedule.reload();
              return 'Saved.';
            });
          }}
        >
          <fieldset>
            <legend>Runs</legend>
            <label class="inline">
              <input
                type="radio"
                name="schedule-kind"
                checked={draft.kind === 'interval'}
                onChange={() => update({ kind: 'interval' })}
              />{' '}
              Every N seconds
            </label>
            <label class="inline">
              <input
                type="radio"
                name="schedule-kind"
                checked={draft.kind === 'cron'}
                onChange={() => update({ kind: 'cron' })}
              />{' '}
              On a cron expression
            </label>
          </fieldset>
          {draft.kind === 'interval' ? (
            <div class="field">
              <label for="schedule-interval">Interval (seconds)</label>
              <input
                id="schedule-interval"
                type="number"
                min={1}
                step={1}
                required
                value={draft.interval}
                aria-describedby={fieldErrors.interval ? 'schedule-interval-error' : undefined}
                onInput={(event) => update({ interval: event.currentTarget.value })}
              />
              {fieldErrors.interval && (
                <p id="schedule-interval-error" class="field-error">
                  {fieldErrors.interval}
                </p>
              )}
            </div>
          ) : (
            <>
              <div class="field">
                <label for="schedule-cron">Cron expression</label>
                <input
                  id="schedule-cron"
                  required
                  spellcheck={false}
                  placeholder="0 9 * * 1-5"
                  value={draft.cron}
                  aria-describedby="schedule-cron-hint"
                  onInput={(event) => update({ cron: event.currentTarget.value })}
                />
                <p id="schedule-cron-hint" class="hint">
                  Minute, hour, day of month, month, day of week.{' '}
                  {fieldErrors.cron && <span class="field-error">{fieldErrors.cron}</span>}
                </p>
              </div>
              <div class="field">
                <label for="schedule-timezone">Time zone</label>
                <input
                  id="schedule-timezone"
                  list="time-zones"
                  spellcheck={false}
                  value={draft.timezone}
                  onInput={(event) => update({ timezone: event.currentTarget.value })}
                />
                <datalist id="time-zones">
                  {TIME_ZONES.map((zone) => (
                    <option key={zone} value={zone} />
                  ))}
                </datalist>
                {fieldErrors.timezone && <p class="field-error">{fieldErrors.timezone}</p>}
              </div>
            </>
          )}
          {parameters.length > 0 && (
            <fieldset>
              <legend>Parameters of scheduled runs</legend>
              <ParamFields
                idPrefix="schedule-param"
                parameters={parameters}
                values={draft.params}
                errors={paramErrors}
                onChange={(name, value) => update({ params: { ...draft.params, [name]: value } })}
              />
            </fieldset>
          )}
          <div class="field">
            <label for="schedule-overlap">While a run is still going</label>
            <select
              id="schedule-overlap"
              value={draft.overlap}
              onChange={(event) => update({ overlap: event.currentTarget.value === 'allow' ? 'allow' : 'skip' })}
            >
              <option value="skip">skip the scheduled run</option>
              <option value="allow">start it anyway</option>
            </select>
          </div>
          <label class="inline">
            <input
              type="checkbox"
              checked={draft.active}
              onChange={(event) => update({ active: event.currentTarget.checked })}
            />{' '}
            Active
          </label>
          <div class="actions">
            <button type="submit" disabled={save.busy}>
              {save.busy ? 'Saving…' : 'Save schedule'}
            </button>
            {save.done && <span role="status">{save.done}</span>}
          </div>
          <ErrorAlert error={save.error} />
        </form>
      )}
    </section>
  );
}
