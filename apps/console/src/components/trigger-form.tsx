import { triggerExecution } from '@botfleet/sdk';
import { useState } from 'preact/hooks';
import { unknownParameterOf } from '../api-errors';
import { useSession } from '../console-session';
import { buildParams, type ExtraParam, type FieldValue, type Parameter } from '../params';
import { hrefOf, navigate } from '../routes';
import { useAction } from '../use-action';
import { ErrorAlert } from './error-alert';
import { ParamFields, valuesOf } from './param-fields';

/**
 * A form built from the manifest's parameters (typed inputs, required ones marked), plus free
 * name/value rows for names the manifest does not declare yet: the API then answers
 * `unknown_parameter` with the closest declared name, shown beside the row with a fix.
 */
export function TriggerForm({ botId, parameters }: { botId: string; parameters: Parameter[] }) {
  const { client, canWrite } = useSession();
  const [values, setValues] = useState<Record<string, FieldValue>>(() => valuesOf(parameters, {}));
  const [extras, setExtras] = useState<ExtraParam[]>([]);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const trigger = useAction();
  if (!canWrite) return null;

  const unknown = unknownParameterOf(trigger.error);
  const setValue = (name: string, value: FieldValue) => setValues((old) => ({ ...old, [name]: value }));
  const applySuggestion = (from: string, to: string) => {
    const row = extras.find((extra) => extra.name.trim() === from);
    setExtras((old) => old.filter((extra) => extra.name.trim() !== from));
    if (row && parameters.some((p) => p.name === to)) setValue(to, row.value);
    else if (row) setExtras((old) => [...old, { name: to, value: row.value }]);
    trigger.setError(null);
  };

  return (
    <section aria-labelledby="trigger-heading">
      <h2 id="trigger-heading">Run now</h2>
      <form
        class="form"
        noValidate={false}
        onSubmit={(event) => {
          event.preventDefault();
          const built = buildParams(parameters, values, extras);
          setFieldErrors(built.errors);
          if (Object.keys(built.errors).length > 0) return;
          trigger.run(async () => {
            const body = { params: built.params };
            const { data } = await triggerExecution({ client, path: { botId }, body, throwOnError: true });
            navigate(hrefOf({ page: 'run', executionId: data.executionId }));
          });
        }}
      >
        {parameters.length === 0 && <p>This bot takes no parameters.</p>}
        <ParamFields
          idPrefix="param"
          parameters={parameters}
          values={values}
          errors={fieldErrors}
          onChange={setValue}
        />
        {extras.map((extra, index) => {
          const isUnknown = unknown !== null && unknown.parameter === extra.name.trim();
          return (
            <fieldset class="extra-param" key={index}>
              <legend>Other parameter {index + 1}</legend>
              <div class="field">
                <label for={`extra-name-${index}`}>Name</label>
                <input
                  id={`extra-name-${index}`}
                  value={extra.name}
                  spellcheck={false}
                  aria-invalid={isUnknown ? true : undefined}
                  aria-describedby={isUnknown ? `extra-error-${index}` : undefined}
                  onInput={(event) => {
                    const name = event.currentTarget.value;
                    setExtras((old) => old.map((row, i) => (i === index ? { ...row, name } : row)));
                  }}
                />
              </div>
              <div class="field">
                <label for={`extra-value-${index}`}>Value</label>
                <input
                  id={`extra-value-${index}`}
                  value={extra.value}
                  onInput={(event) => {
                    const value = event.currentTarget.value;
                    setExtras((old) => old.map((row, i) => (i === index ? { ...row, value } : row)));
                  }}
                />
              </div>
              {isUnknown && (
                <p id={`extra-error-${index}`} class="field-error" role="alert">
                  Unknown parameter ‘{unknown.parameter}’.
                  {unknown.suggestion && (
                    <>
                      {' '}
                      Did you mean ‘{unknown.suggestion}’?{' '}
                      <button
                        type="button"
                        class="link-button"
                        onClick={() => applySuggestion(unknown.parameter, unknown.suggestion ?? '')}
                      >
                        Use ‘{unknown.suggestion}’
                      </button>
                    </>
                  )}
                </p>
              )}
              <button
                type="button"
                class="link-button"
                onClick={() => setExtras((old) => old.filter((_row, i) => i !== index))}
              >
                Remove
              </button>
            </fieldset>
          );
        })}
        <div class="actions">
          <button type="button" class="secondary" onClick={() => setExtras((old) => [...old, { name: '', value: '' }])}>
            Add another parameter
          </button>
          <button type="submit" disabled={trigger.busy}>
            {trigger.busy ? 'Starting…' : 'Run'}
          </button>
        </div>
        {/* An unknown parameter is shown beside its row; every other refusal here. */}
        {!unknown || !extras.some((extra) => extra.name.trim() === unknown.parameter) ? (
          <ErrorAlert error={trigger.error} />
        ) : null}
      </form>
    </section>
  );
}
