/** A file chosen or dropped on the page, parsed as JSON; the messages name the file. */
export async function readJsonFile(file: File, limits: { maxBytes: number; notJsonHint: string }): Promise<unknown> {
  if (file.size > limits.maxBytes) {
    throw new Error(`${file.name} is larger than ${Math.round(limits.maxBytes / 1024 / 1024)} MiB`);
  }
  try {
    return JSON.parse(await file.text()) as unknown;
  } catch {
    throw new Error(`${file.name} is not JSON: ${limits.notJsonHint}`);
  }
}

/** Hands a JSON value to the browser as a file download; nothing of it is put on the page. */
export function saveJsonFile(fileName: string, value: unknown): void {
  const url = URL.createObjectURL(new Blob([JSON.stringify(value, null, 2)], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  // Revoked later rather than now: a browser may read the blob after the click has returned.
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}
