import type { ProfileOrigin } from '@botfleet/sdk';

/** The sites a profile's state covers, with how much it keeps for each: counts only, never a value. */
export function OriginsTable({ origins, caption }: { origins: ProfileOrigin[]; caption: string }) {
  if (origins.length === 0) return <p>No cookies or storage: runs start as a fresh browser.</p>;
  return (
    <div class="table-scroll">
      <table data-testid="profile-origins">
        <caption class="hint">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Site</th>
            <th scope="col">Cookies</th>
            <th scope="col">localStorage keys</th>
            <th scope="col">IndexedDB databases</th>
          </tr>
        </thead>
        <tbody>
          {origins.map((origin) => (
            <tr key={origin.origin}>
              <th scope="row" class="wrap">
                {origin.origin}
              </th>
              <td>{origin.cookies}</td>
              <td>{origin.localStorageKeys}</td>
              <td>{origin.indexedDBDatabases}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
