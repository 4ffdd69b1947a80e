import { readdirSync, readFileSync } from 'node:fs';

/** Linux only: reads /proc. Used by tests to prove no browser process outlives its host. */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** Single-letter state; `Z` is a zombie. */
  state: string;
  command: string;
}

export function listProcesses(): ProcessInfo[] {
  const out: ProcessInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // "pid (comm) state ppid ...": comm may contain spaces and parentheses.
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      out.push({ pid: Number(entry), ppid: Number(rest[1]), state: rest[0] ?? '?', command });
    } catch {
      // The process exited while we read it.
    }
  }
  return out;
}

/** The process and all its descendants. */
export function processTree(rootPid: number, processes: ProcessInfo[] = listProcesses()): ProcessInfo[] {
  const tree: ProcessInfo[] = [];
  const queue = [rootPid];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    const self = processes.find((p) => p.pid === pid);
    if (self) tree.push(self);
    for (const child of processes.filter((p) => p.ppid === pid)) queue.push(child.pid);
  }
  return tree;
}

/** Chromium processes started by this Node process (its direct children running chromium/chrome). */
export function chromiumChildren(parentPid: number = process.pid): ProcessInfo[] {
  return listProcesses().filter((p) => p.ppid === parentPid && /chrom/i.test(p.command));
}

/** True while the pid exists and is not a zombie. */
export function isRunning(pid: number): boolean {
  const info = listProcesses().find((p) => p.pid === pid);
  return info !== undefined && info.state !== 'Z';
}
