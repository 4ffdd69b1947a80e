// Times are shown in the browser's zone with the zone named, so a schedule's next runs (computed
// by the API in the schedule's zone) read unambiguously.
const DATE_TIME = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  timeZoneName: 'short',
});

export function formatTime(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? '—' : DATE_TIME.format(new Date(ms));
}

/** A time in a given IANA zone (a cron schedule's), falling back to the browser's on a bad zone. */
export function formatTimeIn(ms: number, timeZone: string): string {
  try {
    return new Intl.DateTimeFormat(undefined, {
      dateStyle: 'medium',
      timeStyle: 'short',
      timeZone,
    }).format(new Date(ms));
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
