import type { Permission } from '@botfleet/core';
import type { BotVersionRecord, BotVersionSummary } from '@botfleet/db';
import type { BotVersionSummaryView, BotVersionView } from '../contracts/bot-versions.contract';
import { toManifestView } from './manifest.view';

type ChangedPart = BotVersionSummaryView['changes'][number];
type ManifestSection = BotVersionSummaryView['summary']['manifestSections'][number];

/** A version in a list: what changed, against the bot's current version number. */
export function toBotVersionSummaryView(version: BotVersionSummary, currentVersion: number): BotVersionSummaryView {
  return {
    version: version.version,
    createdAt: version.createdAt.getTime(),
    changes: version.changes as ChangedPart[],
    restoredFrom: version.restoredFrom,
    current: version.version === currentVersion,
    summary: {
      steps: version.steps,
      scripts: version.scripts,
      manifestSections: version.manifestSections as ManifestSection[],
    },
  };
}

/**
 * One version in full: its steps, scripts and manifest, the manifest masked exactly as GET
 * manifest masks it for this viewer (sealed secrets never leave the database).
 */
export function toBotVersionView(
  version: BotVersionRecord,
  summary: BotVersionSummary,
  currentVersion: number,
  viewer: Permission,
): BotVersionView {
  return {
    ...toBotVersionSummaryView(summary, currentVersion),
    botId: version.botId,
    steps: version.steps,
    scripts: version.scripts.map((script) => ({ ...script, language: 'javascript' as const })),
    manifest: toManifestView(version.manifest, viewer),
  };
}
