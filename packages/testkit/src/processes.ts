import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

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

/**
 * Which of `pids` hold the server side of established TCP connections on local port `port`, and
 * how many each (Linux: /proc/net/tcp{,6} and /proc/<pid>/fd). With node:cluster the primary
 * accepts and hands each connection's socket to one process: this shows which, from the kernel's
 * side, without the server having to say.
 */
export function connectionHolders(port: number, pids: readonly number[]): Map<number, number> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      // "sl local_address rem_address st ... inode": addresses are HEXIP:HEXPORT, state 01 is ESTABLISHED.
      const fields = line.trim().split(/\s+/);
      const localPort = Number.parseInt(fields[1]?.split(':')[1] ?? '', 16);
      if (localPort === port && fields[3] === '01' && fields[9]) inodes.add(fields[9]);
    }
  }
  const holders = new Map<number, number>();
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // Exited.
    }
    for (const fd of fds) {
      let target: string;
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode && inodes.has(inode)) holders.set(pid, (holders.get(pid) ?? 0) + 1);
    }
  }
  return holders;
}
