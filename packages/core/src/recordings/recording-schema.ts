import { z } from 'zod';
import { CredentialFieldSchema, CredentialValueSchema } from '../sessions/credential';

/*
 * The shape of a Chrome DevTools Recorder export, as the API documents and first checks it. It is
 * deliberately loose: Chrome adds fields over time, so unknown ones pass here and are reported as
 * warnings by the import; what each step means is checked by @puppeteer/replay's own parser
 * (import-recording.ts), not by a second copy of its schema.
 */

/** Recordings may be this large (the API's usual body limit is smaller). */
export const MAX_RECORDING_BYTES = 5 * 1024 * 1024;

const RecorderSelectorSchema = z.union([z.string(), z.array(z.string())]);

/**
 * Binds a recorded `change` step to a credential's field: the imported `fill` step takes its value
 * from the credential, and the text the recording typed is dropped (never stored).
 */
export const CredentialBindingSchema = z
  .strictObject({
    step: z.number().int().min(0).describe('0-based index of a `change` step of the recording'),
    credential: CredentialValueSchema.shape.credential,
    field: CredentialFieldSchema,
  })
  .meta({ id: 'CredentialBinding' });
export type CredentialBinding = z.infer<typeof CredentialBindingSchema>;

export const CredentialBindingsSchema = z
  .array(CredentialBindingSchema)
  .max(100)
  .describe('Recorded `change` steps whose fill takes its value from a credential instead of the recorded text');

export const RecordingStepSchema = z
  .looseObject({
    type: z
      .string()
      .describe(
        'setViewport, navigate, click, doubleClick, hover, change, keyDown, keyUp, scroll, waitForElement, ' +
          'waitForExpression (run); emulateNetworkConditions, close (skipped with a warning); anything else is refused',
      ),
    target: z.string().optional().describe("Only 'main' (the default) is supported"),
    frame: z.array(z.number()).optional().describe('Child-frame path the step runs in'),
    selectors: z
      .array(RecorderSelectorSchema)
      .optional()
      .describe('Alternatives tried in order; a list is a chain through shadow roots and frames'),
    timeout: z.number().optional(),
    assertedEvents: z
      .array(z.looseObject({ type: z.string(), url: z.string().optional(), title: z.string().optional() }))
      .optional(),
  })
  .meta({ id: 'RecordingStep' });

export const RecordingSchema = z
  .looseObject({
    title: z.string().describe('Becomes the bot name when none is given'),
    timeout: z.number().optional().describe('Default step timeout (ms)'),
    selectorAttribute: z.string().optional(),
    steps: z.array(RecordingStepSchema),
    credentials: CredentialBindingsSchema.optional().describe(
      'botfleet’s own, not Chrome’s: recorded `change` steps whose fill takes its value from a credential ' +
        '(the recorded text is dropped, never stored)',
    ),
  })
  .describe('A Chrome DevTools Recorder recording, exported as JSON (the format @puppeteer/replay parses)')
  .meta({ id: 'Recording' });
export type RecordingInput = z.infer<typeof RecordingSchema>;

/** Something the import left out or changed; `recordingStep` is the 0-based index of the step (null: the recording). */
export const RecordingWarningSchema = z.object({ recordingStep: z.number().int().nullable(), message: z.string() });
export type RecordingWarning = z.infer<typeof RecordingWarningSchema>;
