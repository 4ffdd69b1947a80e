import { useState } from 'preact/hooks';
import { useSession } from '../console-session';
import { DOWNLOAD_FORMATS, downloadData, type DataSource, type DownloadFormat } from '../data-download';
import { LIST_AT_ROOT, recordListOf, tableOf, type RecordList } from '../records';
import { ErrorAlert } from './error-alert';
import { JsonTree } from './json-tree';

interface DataViewProps {
  data: unknown;
  /** Prefix of the element ids, unique on the page. */
  id: string;
  /** Where the downloads come from: the run's extract, or all the bot's runs. */
  source: DataSource;
  /** What the download buttons fetch, read by a person before they click. */
  downloadHint: string;
}

/**
 * Extracted data as a table when it is a list of records (see recordListOf), with the tree beside
 * it for everything else the data holds, and download buttons for the export endpoints. The
 * downloads cut the records at the table's list, so the file has the rows the table shows.
 */
export function DataView({ data, id, source, downloadHint }: DataViewProps) {
  const list = recordListOf(data);
  return (
    <div class="data-view">
      {list && <RecordsTable list={list} id={id} />}
      <div class="data-tree">
        {list && <h3>As a tree</h3>}
        <JsonTree value={data} label="data" />
      </div>
      <DataDownloads id={id} source={source} itemsPath={list?.itemsPath} hint={downloadHint} />
    </div>
  );
}

function RecordsTable({ list, id }: { list: RecordList; id: string }) {
  const { columns, rows } = tableOf(list.records);
  const captionId = `${id}-table-caption`;
  const where = list.itemsPath === LIST_AT_ROOT ? '' : ` in “${list.itemsPath}”`;
  return (
    // Focusable and named: a keyboard user can scroll a table wider than the screen (360 px).
    <div class="table-scroll" role="region" aria-labelledby={captionId} tabIndex={0}>
      <table data-testid={`${id}-table`}>
        <caption id={captionId}>
          {rows.length} {rows.length === 1 ? 'record' : 'records'}
          {where} as a table
        </caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th scope="col" key={column}>
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((cells, row) => (
            <tr key={row}>
              {/* Text children: a cell holding HTML shows the HTML, never renders it. */}
              {cells.map((cell, column) => (
                <td key={column}>{cell}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

interface DownloadsProps {
  id: string;
  source: DataSource;
  itemsPath: string | undefined;
  hint: string;
}

function DataDownloads({ id, source, itemsPath, hint }: DownloadsProps) {
  const { client } = useSession();
  const [busy, setBusy] = useState<DownloadFormat | null>(null);
  const [error, setError] = useState<unknown>(null);
  const hintId = `${id}-download-hint`;
  const download = (format: DownloadFormat) => {
    setBusy(format);
    setError(null);
    downloadData(client, source, format, itemsPath)
      .catch((caught: unknown) => setError(caught))
      .finally(() => setBusy(null));
  };
  return (
    <div class="data-downloads">
      <p id={hintId} class="hint">
        {hint}
      </p>
      <div class="actions" role="group" aria-describedby={hintId} aria-label="Download">
        {DOWNLOAD_FORMATS.map(({ format, label }) => (
          <button
            type="button"
            key={format}
            disabled={busy !== null}
            aria-busy={busy === format}
            onClick={() => download(format)}
          >
            Download {label}
          </button>
        ))}
      </div>
      <ErrorAlert error={error} />
    </div>
  );
}
