// Every time is shown with its zone named, one format for all: in the browser's zone, or in a
// cron schedule's own zone for its next runs, which then read unambiguously beside the others.
const DATE_TIME: Intl.DateTimeFormatOptions = {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  timeZoneName: 'short',
};
const IN_BROWSER_ZONE = new Intl.DateTimeFormat(undefined, DATE_TIME);

export function formatTime(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? '—' : IN_BROWSER_ZONE.format(new Date(ms));
}

// A log line's clock time: the run's lines share a day, the milliseconds order them; zone named too.
const CLOCK = new Intl.DateTimeFormat(undefined, {
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  fractionalSecondDigits: 3,
  timeZoneName: 'short',
});

export function formatClock(ms: number): string {
  return CLOCK.format(new Date(ms));
}

/** A time in a given IANA zone (a cron schedule's), falling back to the browser's on a bad zone. */
export function formatTimeIn(ms: number, timeZone: string): string {
  try {
    return new Intl.DateTimeFormat(undefined, { ...DATE_TIME, timeZone }).format(new Date(ms));
  } catch {
    return formatTime(ms);
  }
}

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return `${minutes} min ${seconds} s`;
}

export function formatInterval(seconds: number): string {
  if (seconds % 86_400 === 0) return `every ${seconds / 86_400} d`;
  if (seconds % 3600 === 0) return `every ${seconds / 3600} h`;
  if (seconds % 60 === 0) return `every ${seconds / 60} min`;
  return `every ${seconds} s`;
}

/** A credential's TOTP settings as people read them, e.g. "TOTP: SHA1, 6 digits, 30 s". */
export function describeTotp(totp: { algorithm: string; digits: number; period: number }): string {
  return `TOTP: ${totp.algorithm}, ${totp.digits} digits, ${totp.period} s`;
}

/** A bot's retry policy: "none", or "2, 30 s apart". */
export function describeRetry(retry: { attempts: number; delaySeconds: number }): string {
  if (retry.attempts === 0) return 'none';
  return retry.delaySeconds === 0 ? String(retry.attempts) : `${retry.attempts}, ${retry.delaySeconds} s apart`;
}

/** A file size in the unit that reads best: "812 B", "14.2 KB", "3.1 MB" (powers of 1024). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
