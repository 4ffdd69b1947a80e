import { errorMessage } from '../api-errors';

/** Says that a page stopped following its event stream (the API refused it), and what to do. */
export function StreamNotice({ error, what }: { error: unknown; what: string }) {
  if (error === null || error === undefined) return null;
  return (
    <p class="notice" role="status">
      Live updates stopped ({errorMessage(error)}). Reload the page to follow {what} again.
    </p>
  );
}
