import type { BrowserHost } from '../browser-host';

/** A rectangle in CSS pixels of a screenshot. */
export interface PixelBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Playwright's default screenshot mask colour (#FF00FF), as pngColoursIn reports it. */
export const MASK_COLOUR = '255,0,255';

/**
 * The distinct colours inside `box` of a PNG (inset by 2 px against anti-aliased edges), decoded
 * by Chromium itself rather than a PNG library: what a person opening the screenshot would see.
 */
export async function pngColoursIn(host: BrowserHost, png: Uint8Array, box: PixelBox): Promise<string[]> {
  const context = await (await host.getBrowser()).newContext();
  try {
    const page = await context.newPage();
    return await page.evaluate(
      async ({ data, box }) => {
        const bitmap = await createImageBitmap(await (await fetch(`data:image/png;base64,${data}`)).blob());
        const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
        const ctx = canvas.getContext('2d');
        if (!ctx) throw new Error('no 2d canvas');
        ctx.drawImage(bitmap, 0, 0);
        const pixels = ctx.getImageData(box.x + 2, box.y + 2, box.width - 4, box.height - 4).data;
        const colours = new Set<string>();
        for (let i = 0; i < pixels.length; i += 4) colours.add(`${pixels[i]},${pixels[i + 1]},${pixels[i + 2]}`);
        return [...colours];
      },
      { data: Buffer.from(png).toString('base64'), box },
    );
  } finally {
    await context.close();
  }
}
