import type { Artifact } from '@botfleet/sdk';
import { formatBytes } from '../format';
import { sameOriginPath } from '../same-origin-url';

const KIND_LABELS: Record<Artifact['kind'], string> = {
  screenshot: 'Screenshot',
  stepScreenshot: 'Step screenshot',
  download: 'Download',
  trace: 'Trace',
  har: 'HAR',
};

/**
 * Playwright's trace viewer, served by the API on this origin, opening a trace by its signed URL.
 * The URL is passed as a path: the viewer's service worker fetches it, and its CSP lets it fetch
 * from this origin only.
 */
export function traceViewerHref(artifactUrl: string): string {
  return `/trace-viewer/?trace=${encodeURIComponent(sameOriginPath(artifactUrl))}`;
}

/** The files the run kept, each with a link that expires; a trace opens in the trace viewer. */
export function ArtifactsList({ artifacts }: { artifacts: Artifact[] }) {
  return (
    <section aria-labelledby="artifacts-heading">
      <h2 id="artifacts-heading">Artifacts</h2>
      {artifacts.length === 0 ? (
        <p>None.</p>
      ) : (
        <div class="table-scroll">
          <table data-testid="artifacts">
            <caption class="hint">The links expire; reload the page for new ones.</caption>
            <thead>
              <tr>
                <th scope="col">Kind</th>
                <th scope="col">Step</th>
                <th scope="col">Size</th>
                <th scope="col">Open</th>
              </tr>
            </thead>
            <tbody>
              {artifacts.map((artifact) => (
                <tr key={artifact.id}>
                  <th scope="row">{KIND_LABELS[artifact.kind]}</th>
                  <td>{artifact.stepIndex === undefined ? '—' : artifact.stepIndex + 1}</td>
                  <td>{formatBytes(artifact.bytes)}</td>
                  <td>
                    <a href={sameOriginPath(artifact.url)} target="_blank" rel="noopener">
                      {artifact.kind === 'trace' ? 'Download' : 'Open'}
                    </a>
                    {artifact.kind === 'trace' && (
                      <>
                        {' · '}
                        <a href={traceViewerHref(artifact.url)} target="_blank" rel="noopener">
                          Open trace
                        </a>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
