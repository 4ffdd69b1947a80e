import type { StepOutput } from '@botfleet/sdk';
import { formatDuration } from '../format';
import { JsonTree } from './json-tree';
import { StatusBadge } from './status-badge';

/** Step outputs in order, each with its timing; appears step by step while the run goes. */
export function StepOutputs({ steps }: { steps: StepOutput[] }) {
  return (
    <section aria-labelledby="outputs-heading">
      <h2 id="outputs-heading">Steps</h2>
      {steps.length === 0 ? (
        <p>No step has reported yet.</p>
      ) : (
        <ol class="outputs" data-testid="step-outputs">
          {steps.map((step) => (
            <li key={step.index}>
              <div class="output-line">
                <span class="output-index">{step.index + 1}.</span> <code>{step.action}</code>{' '}
                <StatusBadge status={step.status} /> <span class="hint">{formatDuration(step.duration)}</span>
              </div>
              {step.error && <p class="error-text">{step.error}</p>}
              {step.data !== null && step.data !== undefined && (
                <JsonTree value={step.data} label={`step ${step.index + 1} data`} open={false} />
              )}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
