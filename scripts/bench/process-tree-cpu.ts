import { readdirSync, readFileSync } from 'node:fs';

/** Linux reports /proc times in USER_HZ ticks, which is 100 on every architecture it supports. */
const MS_PER_TICK = 10;

interface ProcStat {
  ppid: number;
  /** utime + stime + cutime + cstime, in ms: a process's own CPU plus that of children it reaped. */
  cpuMs: number;
}

function readStat(pid: number): ProcStat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may itself contain spaces or parentheses.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const tick = (i: number) => Number(fields[i] ?? 0);
    return { ppid: tick(1), cpuMs: (tick(11) + tick(12) + tick(13) + tick(14)) * MS_PER_TICK };
  } catch {
    return null; // Exited between the directory listing and the read.
  }
}

/**
 * CPU ms used so far by this process's descendants (not itself): here, the Chromium process
 * trees of the worker and of the bare loop. Renderers come and go with each context, but a
 * renderer's time moves into its parent's cutime when it is reaped, so a difference of two
 * readings counts them. Null where /proc is not available.
 */
export function descendantsCpuMs(root: number = process.pid): number | null {
  let pids: number[];
  try {
    pids = readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number);
  } catch {
    return null;
  }
  const stats = new Map<number, ProcStat>();
  for (const pid of pids) {
    const stat = readStat(pid);
    if (stat) stats.set(pid, stat);
  }
  const children = new Map<number, number[]>();
  for (const [pid, stat] of stats) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), pid]);
  let total = 0;
  const queue = [...(children.get(root) ?? [])];
  while (queue.length > 0) {
    const pid = queue.pop()!;
    total += stats.get(pid)?.cpuMs ?? 0;
    queue.push(...(children.get(pid) ?? []));
  }
  return total;
}

/** CPU used during a window: this Node process, and its Chromium processes. */
export interface CpuUse {
  nodeMs: number;
  /** NaN where /proc is not available. */
  chromiumMs: number;
}

/**
 * Starts measuring; the returned function reads the CPU used since. Unlike wall time, CPU per
 * run is barely moved by other people's load, so it compares the sides even on a busy machine.
 */
export function startCpuMeter(): () => CpuUse {
  const node = process.cpuUsage();
  const children = descendantsCpuMs();
  return () => {
    const used = process.cpuUsage(node);
    const now = descendantsCpuMs();
    return {
      nodeMs: (used.user + used.system) / 1000,
      chromiumMs: now === null || children === null ? Number.NaN : now - children,
    };
  };
}

export function addCpu(a: CpuUse, b: CpuUse): CpuUse {
  return { nodeMs: a.nodeMs + b.nodeMs, chromiumMs: a.chromiumMs + b.chromiumMs };
}

/** CPU ms used so far by one process (user + system, plus children it reaped); NaN if unreadable. */
export function processCpuMs(pid: number): number {
  return readStat(pid)?.cpuMs ?? Number.NaN;
}

/** CPU ms this process used since `since` (a process.cpuUsage() reading). */
export function ownCpuMsSince(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

/**
 * CPU ms the whole machine has spent busy so far (every core; /proc/stat's first line, idle and
 * iowait excluded): over a window, busy ms / window ms is how many cores were busy with anything.
 */
export function machineBusyMs(): number {
  try {
    const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/);
    const [user, nice, system, , , irq, softirq, steal] = ticks.map(Number);
    return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) * MS_PER_TICK;
  } catch {
    return Number.NaN;
  }
}
