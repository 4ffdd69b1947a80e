import { errorMessage } from '../api-errors';

/** An error the user should read now: announced by screen readers as it appears. */
export function ErrorAlert({ error }: { error: unknown }) {
  if (error === null || error === undefined) return null;
  return (
    <p class="error" role="alert">
      {errorMessage(error)}
    </p>
  );
}
