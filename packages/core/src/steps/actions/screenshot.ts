import { z } from 'zod';
import { boundedScreenshotOptions } from '../../output-bounds';
import { ARTIFACT_CONTENT_TYPES } from '../../schemas/artifact';
import { defineStepAction } from '../define-step-action';

/**
 * screenshot: captures the page (the full page with `fullPage`, down to at most 16,384 px high);
 * its output names the artifact. Elements filled from a credential are masked.
 */
export const screenshotAction = defineStepAction({
  action: 'screenshot',
  fields: { fullPage: z.boolean().optional() },
  async perform(_page, step, run) {
    // A full page is clipped to MAX_SCREENSHOT_HEIGHT (see FULL_PAGE_CLIP), never failed.
    const png = await run.screenshot(
      boundedScreenshotOptions({ type: 'png', fullPage: step.fullPage ?? false, timeout: run.timeoutMs }),
    );
    return { artifactId: await run.saveArtifact('screenshot', ARTIFACT_CONTENT_TYPES.screenshot, png) };
  },
  describe: (step) => (step.fullPage ? 'screenshot full page' : 'screenshot'),
  toScript: (step) => [`return page.screenshot(${step.fullPage ? '{ fullPage: true }' : ''});`],
});
