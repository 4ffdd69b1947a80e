import type { Manifest, Step } from '@botfleet/sdk';

/**
 * Whether the bot holds a saved login as the API judges it (docs/sessions.md): a profile in its
 * manifest's session, or a step that fills from a credential. Only an admin key changes such a
 * bot, so the bot page shows a write key its editors read-only rather than controls that answer 403.
 */
export function usesSavedLogin(manifest: Manifest, steps: readonly Step[]): boolean {
  return manifest.session !== null || steps.some((step) => step.action === 'fill' && typeof step.value !== 'string');
}
