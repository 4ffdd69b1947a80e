import type { Manifest } from '@botfleet/sdk';
import { formatTime } from '../format';
import { UrlText } from './url-text';

/** What the API returns for a secret that is set: the console never has the secret itself. */
const MASK = '********';

const masked = (value: string | undefined) =>
  value === undefined ? 'not set' : value === MASK ? '•••••••• (set)' : value;

/**
 * Capabilities, webhook and parameters as read back from the API (secrets already masked there):
 * what a read key sees; a write key gets ManifestEditor.
 */
export function ManifestView({ manifest }: { manifest: Manifest }) {
  const { capabilities, webhook, parameters } = manifest;
  const capabilityRows: [string, string][] = [
    ['Proxy', capabilities.proxy ? 'yes' : 'no'],
    ['Ad blocking', capabilities.adBlocking ? 'yes' : 'no'],
    ['Downloads kept', capabilities.downloads ? 'yes' : 'no'],
    ['Trace', capabilities.trace ?? 'onFailure (default)'],
    ['HAR', capabilities.har ? 'yes' : 'no'],
    ['Step screenshots', capabilities.stepScreenshots ? 'yes' : 'no'],
    ['Locale', capabilities.locale ?? 'default'],
    ['Time zone', capabilities.timezone ?? 'default'],
    ['User agent', capabilities.userAgent ?? 'default'],
    [
      'Geolocation',
      capabilities.geolocation ? `${capabilities.geolocation.latitude}, ${capabilities.geolocation.longitude}` : 'none',
    ],
    [
      'Resolution',
      capabilities.resolution ? `${capabilities.resolution.width} × ${capabilities.resolution.height}` : 'default',
    ],
    ['Timeout', capabilities.timeout ? `${capabilities.timeout} s` : 'default'],
  ];
  return (
    <>
      <h3>Capabilities</h3>
      <dl class="facts">
        {capabilityRows.map(([name, value]) => (
          <div key={name}>
            <dt>{name}</dt>
            <dd class="wrap">{value}</dd>
          </div>
        ))}
      </dl>
      <h3>Webhook</h3>
      {webhook ? (
        <dl class="facts">
          <div>
            <dt>URL</dt>
            <dd>
              <UrlText url={webhook.url} />
            </dd>
          </div>
          <div>
            <dt>Auth</dt>
            <dd>{webhook.auth}</dd>
          </div>
          {webhook.auth === 'hmac' && (
            <div>
              <dt>Secret</dt>
              <dd data-testid="webhook-secret">{masked(webhook.secret)}</dd>
            </div>
          )}
          {webhook.auth === 'jwt' && (
            <>
              <div>
                <dt>Login URL</dt>
                <dd>{webhook.loginUrl ? <UrlText url={webhook.loginUrl} /> : '—'}</dd>
              </div>
              <div>
                <dt>Username</dt>
                <dd>{webhook.username ?? '—'}</dd>
              </div>
              <div>
                <dt>Password</dt>
                <dd>{masked(webhook.password)}</dd>
              </div>
            </>
          )}
          <div>
            <dt>Events</dt>
            <dd>{(webhook.events ?? ['execution.completed']).join(', ')}</dd>
          </div>
          <div>
            <dt>Envelope</dt>
            <dd>{webhook.envelope ? 'yes' : 'no'}</dd>
          </div>
          <div>
            <dt>Only on change</dt>
            <dd>{webhook.onlyOnChange ? 'yes' : 'no'}</dd>
          </div>
          {webhook.dataPath && (
            <div>
              <dt>Data path</dt>
              <dd>
                <code>{webhook.dataPath}</code>
              </dd>
            </div>
          )}
          {webhook.disabledAt && (
            <div>
              <dt>Disabled</dt>
              <dd class="error">
                {formatTime(webhook.disabledAt)}: {webhook.disabledReason ?? 'no reason given'}
              </dd>
            </div>
          )}
        </dl>
      ) : (
        <p>No webhook: results are read through the API.</p>
      )}
      <h3>Parameters</h3>
      {parameters.length === 0 ? (
        <p>None.</p>
      ) : (
        <ul class="plain">
          {parameters.map((parameter) => (
            <li key={parameter.name}>
              <code>{parameter.name}</code> ({parameter.type}
              {parameter.required ? ', required' : ''}){parameter.description ? `: ${parameter.description}` : ''}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
