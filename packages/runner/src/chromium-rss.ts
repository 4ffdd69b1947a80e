import { readdir, readFile } from 'node:fs/promises';

/*
 * The memory Chromium uses, for BROWSER_MAX_RSS_MB. Playwright's launch() gives no process
 * handle, so this reads /proc: the resident set of every process descended from this one whose
 * command is Chromium's. Where /proc is missing (not Linux) it answers null and nothing recycles
 * for memory.
 */

const PAGE_BYTES = 4096;

interface ProcInfo {
  pid: number;
  ppid: number;
  comm: string;
  rssPages: number;
}

async function readProc(pid: number): Promise<ProcInfo | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // comm is in parentheses and may contain spaces; the fields after it are space-separated.
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const fields = stat.slice(close + 2).split(' ');
    return { pid, ppid: Number(fields[1]), comm, rssPages: Number(fields[21]) };
  } catch {
    return null; // exited meanwhile
  }
}

/** Total resident bytes of this process's Chromium descendants, or null where /proc is unavailable. */
export async function readChromiumRssBytes(rootPid: number = process.pid): Promise<number | null> {
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return null;
  }
  const infos = (await Promise.all(entries.filter((e) => /^\d+$/.test(e)).map((e) => readProc(Number(e))))).filter(
    (info): info is ProcInfo => info !== null,
  );
  const children = new Map<number, ProcInfo[]>();
  for (const info of infos) children.set(info.ppid, [...(children.get(info.ppid) ?? []), info]);
  let pages = 0;
  const stack = [...(children.get(rootPid) ?? [])];
  while (stack.length > 0) {
    const info = stack.pop()!;
    if (/chrom/i.test(info.comm)) pages += info.rssPages;
    stack.push(...(children.get(info.pid) ?? []));
  }
  return pages * PAGE_BYTES;
}
