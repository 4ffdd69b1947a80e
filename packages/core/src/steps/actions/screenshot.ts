import { z } from 'zod';
import { defineStepAction } from '../define-step-action';

/** screenshot: captures the page (the full page with `fullPage`); its output names the artifact. */
export const screenshotAction = defineStepAction({
  action: 'screenshot',
  fields: { fullPage: z.boolean().optional() },
  async perform(page, step, run) {
    const png = await page.screenshot({ type: 'png', fullPage: step.fullPage ?? false, timeout: run.timeoutMs });
    return { artifactId: await run.saveArtifact('screenshot', 'image/png', png) };
  },
  describe: (step) => (step.fullPage ? 'screenshot full page' : 'screenshot'),
  toScript: (step) => [`return page.screenshot(${step.fullPage ? '{ fullPage: true }' : ''});`],
});
