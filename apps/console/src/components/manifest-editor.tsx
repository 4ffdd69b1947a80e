import type { Manifest } from '@botfleet/sdk';
import { CapabilitiesForm } from './capabilities-form';
import { ParametersEditor } from './parameters-editor';
import { WebhookForm } from './webhook-form';

/**
 * The manifest for a write key: a form per section, each saving its own section alone (a read
 * key gets ManifestView instead). The browser session has its own editor beside these.
 */
export function ManifestEditor({
  botId,
  manifest,
  onSaved,
}: {
  botId: string;
  manifest: Manifest;
  /** After any section was saved: the bot has a new version and the manifest is read again. */
  onSaved(): void;
}) {
  return (
    <>
      <h3 id="capabilities-heading">Capabilities</h3>
      <CapabilitiesForm botId={botId} capabilities={manifest.capabilities} onSaved={onSaved} />
      <h3 id="webhook-heading">Webhook</h3>
      <WebhookForm botId={botId} webhook={manifest.webhook} onSaved={onSaved} />
      <h3 id="parameters-heading">Parameters</h3>
      <ParametersEditor botId={botId} parameters={manifest.parameters} onSaved={onSaved} />
    </>
  );
}
