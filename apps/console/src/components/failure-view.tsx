import type { Failure } from '@botfleet/sdk';
import { sameOriginPath } from '../same-origin-url';
import { failureText } from '../step-line';

/** Why the run failed, at which step, and what the page looked like then. */
export function FailureView({ failure }: { failure: Failure }) {
  return (
    <section aria-labelledby="failure-heading" class="failure">
      <h2 id="failure-heading">Failure</h2>
      <p class="error-text" data-testid="failure-error">
        {failureText(failure)}
      </p>
      {failure.screenshotUrl ? (
        <figure>
          <a href={sameOriginPath(failure.screenshotUrl)} target="_blank" rel="noopener">
            <img
              class="screenshot"
              src={sameOriginPath(failure.screenshotUrl)}
              alt="The page when the run failed"
              loading="lazy"
            />
          </a>
          <figcaption>The page when the run failed (opens full size). The link expires.</figcaption>
        </figure>
      ) : (
        <p>No screenshot: the browser had no page to capture.</p>
      )}
    </section>
  );
}
