/*
 * The bounds on what one run may produce or make the browser produce (contract part 3, section
 * 1). The byte bounds are settings (MAX_STEP_OUTPUT_BYTES, MAX_EXECUTION_OUTPUT_BYTES) the worker
 * passes down; the pixel bounds are fixed, because they are what Chromium can render without a
 * single run taking gigabytes (a 3840x16384 PNG is already ~250 MB while it is painted).
 */

/** The error code a failure past an output bound names. */
export const OUTPUT_TOO_LARGE = 'output_too_large';

/** The largest viewport a bot may ask for (capabilities.resolution, setViewport, a script's setViewportSize). */
export const MAX_VIEWPORT = { width: 3840, height: 2160 } as const;

/**
 * The tallest full-page screenshot, in CSS pixels. A taller page is captured down to this height
 * (clipped, not failed): an endless feed still gets its top, which is what a bot screenshots it for.
 */
export const MAX_SCREENSHOT_HEIGHT = 16_384;

/**
 * The clip every full-page screenshot is taken with: Playwright trims it to the page, so a page
 * within the bounds is captured whole, and a taller (or, past the widest viewport, wider) one down
 * to the bound, without Chromium ever painting the rest.
 */
export const FULL_PAGE_CLIP = { x: 0, y: 0, width: MAX_VIEWPORT.width, height: MAX_SCREENSHOT_HEIGHT } as const;

/** Screenshot options with the full-page bound applied (see FULL_PAGE_CLIP). */
export function boundedScreenshotOptions<O extends { fullPage: boolean }>(
  options: O,
): O & { clip?: typeof FULL_PAGE_CLIP } {
  return options.fullPage ? { ...options, clip: FULL_PAGE_CLIP } : options;
}

/**
 * An output went past a bound: the step (or, for the run's extracted data, the run) fails with
 * this, and the output is not stored. The bot's doing: never retried as infrastructure.
 */
export class OutputTooLargeError extends Error {
  /** The step whose output was too large, when known; null for the run's extracted data. */
  readonly stepIndex: number | null;

  constructor(stepIndex: number | null, message: string) {
    super(`${OUTPUT_TOO_LARGE}: ${message}`);
    this.name = 'OutputTooLargeError';
    this.stepIndex = stepIndex;
  }
}

/**
 * Checks a viewport size at run time (the schemas check it at write time): a stored bot from
 * before the bound, or a script's own call, cannot get past it either.
 */
export function assertViewport(size: { width: number; height: number }): void {
  if (
    !Number.isInteger(size.width) ||
    !Number.isInteger(size.height) ||
    size.width < 1 ||
    size.height < 1 ||
    size.width > MAX_VIEWPORT.width ||
    size.height > MAX_VIEWPORT.height
  ) {
    throw new Error(
      `a viewport of ${size.width}x${size.height} is not allowed: at most ${MAX_VIEWPORT.width}x${MAX_VIEWPORT.height} whole pixels`,
    );
  }
}
