import { Fragment } from 'preact';
import { urlPieces } from '../url-pieces';

/**
 * A URL that wraps between its parts (url-pieces.ts) rather than inside its host name. The
 * `wrap` style still breaks a single piece too long for the line, so nothing overflows.
 */
export function UrlText({ url }: { url: string }) {
  return (
    <span class="wrap" data-testid="url-text">
      {urlPieces(url).map((piece, index) => (
        <Fragment key={index}>
          {index > 0 && <wbr />}
          {piece}
        </Fragment>
      ))}
    </span>
  );
}
