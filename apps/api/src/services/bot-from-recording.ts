import {
  AppError,
  HttpUrlSchema,
  importRecording,
  indexSteps,
  type RecordingInput,
  type RecordingWarning,
} from '@botfleet/core';
import { createBotWithSteps, type Bot, type Db } from '@botfleet/db';
import { generateScript } from '@botfleet/runner';
import type { AuthContext } from '../http/route';
import type { CreateBotRequest } from '../contracts/bots.contract';
import { loginsNamed, requireAdminToAttach } from './bot-login-guard';
import {
  checkCredentialReferences,
  credentialReferencesOf,
  credentialReferencesOfBindings,
} from './credential-references';

/** Name of a bot made from a recording whose title is empty. */
const UNTITLED = 'Imported recording';

/**
 * Creates a bot from a Chrome Recorder recording: its steps come from the recording, `name`
 * defaults to the title and `targetUrl` to the first navigate URL. A recording that cannot run
 * creates nothing (400 invalid_recording), like a refused import, and one that binds a credential
 * needs an admin key (403), like a PUT of such steps.
 */
export async function createBotFromRecording(
  db: Db,
  auth: AuthContext,
  body: CreateBotRequest & { recording: RecordingInput },
): Promise<{ bot: Bot; warnings: RecordingWarning[] }> {
  const { recording, ...fields } = body;
  const imported = importRecording(recording, fields.targetUrl === undefined ? {} : { targetUrl: fields.targetUrl });
  const targetUrl = fields.targetUrl ?? imported.targetUrl;
  if (targetUrl === undefined) {
    throw new AppError('validation_error', 'targetUrl is required: the recording has no navigate step', [
      { path: 'targetUrl', message: 'is required when the recording has no navigate step', in: 'body' },
    ]);
  }
  if (!HttpUrlSchema.safeParse(targetUrl).success) {
    throw new AppError('validation_error', 'The recording’s first navigate URL cannot be the bot’s targetUrl', [
      { path: 'targetUrl', message: `'${targetUrl.slice(0, 200)}' is not an absolute http(s) URL`, in: 'body' },
    ]);
  }
  const steps = indexSteps(imported.steps);
  requireAdminToAttach(auth, loginsNamed(null, credentialReferencesOf(steps)));
  await checkCredentialReferences(db, auth.organizationId, credentialReferencesOfBindings(recording.credentials));
  const name = fields.name ?? (imported.title.trim().slice(0, 200) || UNTITLED);
  const bot = await createBotWithSteps(
    db,
    auth.organizationId,
    {
      name,
      targetUrl,
      kind: fields.kind,
      tags: fields.tags,
      ...(fields.description === undefined ? {} : { description: fields.description }),
    },
    steps,
    generateScript(steps),
  );
  return { bot, warnings: imported.warnings };
}
