import type { ProfileVersionSummary, ProfileWithOrigins } from '@botfleet/db';
import type { ProfileVersionView, ProfileView } from '../contracts/profiles.contract';

// Built field by field: the sealed state must never reach a response.
export function toProfileView(profile: ProfileWithOrigins): ProfileView {
  return {
    id: profile.id,
    name: profile.name,
    description: profile.description,
    origins: profile.origins,
    version: profile.version,
    lastExecutionId: profile.lastExecutionId,
    createdAt: profile.createdAt.getTime(),
    updatedAt: profile.updatedAt.getTime(),
  };
}

export function toProfileVersionView(version: ProfileVersionSummary): ProfileVersionView {
  return {
    version: version.version,
    source: version.source,
    executionId: version.executionId,
    origins: version.origins,
    createdAt: version.createdAt.getTime(),
  };
}
