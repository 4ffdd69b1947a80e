import type { BotVersionSummary } from '@botfleet/sdk';

const count = (change: { before: number | null; after: number }, noun: string) =>
  change.before === null ? `${change.after} ${noun}` : `${noun} ${change.before} → ${change.after}`;

/** What a version changed, in a few words: "steps 4 → 5", "manifest: webhook", "restored version 2". */
export function describeChanges(version: BotVersionSummary): string {
  if (version.restoredFrom !== null) return `restored version ${version.restoredFrom}`;
  if (version.changes.length === 0) return 'the bot as created';
  const { steps, scripts, manifestSections } = version.summary;
  const parts = version.changes.map((part) => {
    switch (part) {
      case 'steps':
        return count(steps, 'steps');
      case 'scripts':
        return count(scripts, 'scripts');
      case 'manifest':
        return manifestSections.length > 0 ? `manifest: ${manifestSections.join(', ')}` : 'manifest';
    }
  });
  return parts.join('; ');
}
