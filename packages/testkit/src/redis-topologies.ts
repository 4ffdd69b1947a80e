import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port';
import { spawnRedisProcess, withRedisClient, type RedisProcess } from './redis-server';
import { waitUntil } from './wait-until';

/*
 * Real Redis topologies for tests, built from `redis-server` and `redis-cli` on PATH, on free
 * loopback ports, each process with a temporary directory of its own; `stop()` kills every
 * process and removes the directories. Nothing is persisted. The deadlines are generous: the
 * machine running the tests is loaded, and a wait that holds returns at once.
 */

export interface RedisAddress {
  readonly host: string;
  readonly port: number;
}

export interface RedisClusterTopology {
  /** The masters (no replicas), each owning a third of the slots. */
  readonly nodes: readonly RedisAddress[];
  /** The nodes as `REDIS_CLUSTER_NODES` takes them: `host:port,host:port,host:port`. */
  readonly nodesSetting: string;
  stop(): Promise<void>;
}

export interface RedisSentinelTopology {
  /** The name the sentinels monitor the master under (`REDIS_SENTINEL_MASTER`). */
  readonly masterName: string;
  /** The sentinels as `REDIS_SENTINELS` takes them: `host:port,host:port,host:port`. */
  readonly sentinelsSetting: string;
  /** The master as the first sentinel that answers reports it now. */
  currentMaster(): Promise<RedisAddress>;
  /** SIGKILLs the current master's process (as in a crash) and waits for it to exit. */
  killMaster(): Promise<void>;
  /**
   * Waits until every live sentinel names a master other than `previous` and that node says it
   * is a master, and resolves with it.
   */
  waitForFailover(previous: RedisAddress): Promise<RedisAddress>;
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';
const CLUSTER_SIZE = 3;
const SENTINELS = 3;
const SENTINEL_QUORUM = 2;
/** How long the sentinels wait before calling a silent master down: short, for a quick failover. */
const DOWN_AFTER_MS = 1_000;
/*
 * Also the pause before a sentinel retries an election it lost (twice this): short, or a split
 * vote on a loaded machine would delay the failover by minutes (the default is 3 minutes).
 */
const FAILOVER_TIMEOUT_MS = 5_000;
/** Start, join and failover waits: seconds on an idle machine, far longer under load. */
const TOPOLOGY_DEADLINE_MS = 60_000;

const runFile = promisify(execFile);

/**
 * Three `redis-server --cluster-enabled yes` masters, joined with `redis-cli --cluster create`;
 * resolves once every node reports `cluster_state:ok` and knows all three.
 */
export async function startRedisCluster(): Promise<RedisClusterTopology> {
  const owned = new OwnedResources();
  try {
    const nodes: RedisProcess[] = [];
    for (let i = 0; i < CLUSTER_SIZE; i++) {
      const dir = await owned.tempDir('botfleet-redis-cluster-');
      nodes.push(
        owned.track(
          await spawnRedisProcess(await freePort(), [
            '--dir',
            dir,
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            'nodes.conf',
            // Our own nodes never fail over (no replicas); a long timeout keeps a stalled node
            // on a loaded machine from being marked failed and the cluster state going to fail.
            '--cluster-node-timeout',
            '15000',
          ]),
        ),
      );
    }
    const addresses = nodes.map((node) => `${HOST}:${node.port}`);
    await runFile('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes'], {
      timeout: TOPOLOGY_DEADLINE_MS,
    });
    await waitUntil(
      async () => {
        for (const node of nodes) {
          const info = await withRedisClient(node.port, (client) => client.cluster('INFO'));
          const ready =
            info.includes('cluster_state:ok') &&
            info.includes(`cluster_known_nodes:${CLUSTER_SIZE}`) &&
            info.includes('cluster_slots_ok:16384');
          if (!ready) return false;
        }
        return true;
      },
      {
        timeoutMs: TOPOLOGY_DEADLINE_MS,
        intervalMs: 100,
        message: 'the Redis Cluster never reported cluster_state:ok',
      },
    );
    return {
      nodes: nodes.map((node) => ({ host: HOST, port: node.port })),
      nodesSetting: addresses.join(','),
      stop: () => owned.release(),
    };
  } catch (error) {
    await owned.release();
    throw error;
  }
}

/**
 * A master, one replica and three sentinels monitoring them (quorum 2, a master silent for 1 s
 * is down); resolves once every sentinel names the master, sees the replica and knows the other
 * sentinels, so a failover can be elected from the start.
 */
export async function startRedisSentinel(masterName = 'botfleet-master'): Promise<RedisSentinelTopology> {
  const owned = new OwnedResources();
  try {
    const dataNodes: RedisProcess[] = [];
    const master = owned.track(
      await spawnRedisProcess(await freePort(), ['--dir', await owned.tempDir('botfleet-redis-')]),
    );
    dataNodes.push(master);
    const replica = owned.track(
      await spawnRedisProcess(await freePort(), [
        '--dir',
        await owned.tempDir('botfleet-redis-'),
        '--replicaof',
        HOST,
        String(master.port),
      ]),
    );
    dataNodes.push(replica);

    const sentinels: RedisProcess[] = [];
    for (let i = 0; i < SENTINELS; i++) {
      const dir = await owned.tempDir('botfleet-redis-sentinel-');
      // A sentinel rewrites its configuration file (known replicas, sentinels, epochs): it must
      // be a file of its own, writable, given first on the command line.
      const configFile = join(dir, 'sentinel.conf');
      await writeFile(
        configFile,
        [
          `dir ${dir}`,
          `sentinel monitor ${masterName} ${HOST} ${master.port} ${SENTINEL_QUORUM}`,
          `sentinel down-after-milliseconds ${masterName} ${DOWN_AFTER_MS}`,
          `sentinel failover-timeout ${masterName} ${FAILOVER_TIMEOUT_MS}`,
          `sentinel parallel-syncs ${masterName} 1`,
          '',
        ].join('\n'),
      );
      sentinels.push(owned.track(await spawnRedisProcess(await freePort(), ['--sentinel'], { configFile })));
    }

    const askSentinel = <T>(sentinel: RedisProcess, ...args: string[]) =>
      withRedisClient(sentinel.port, (client) => client.call('SENTINEL', ...args) as Promise<T>);
    const masterAddress = async (sentinel: RedisProcess): Promise<RedisAddress | null> => {
      const reply = await askSentinel<[string, string] | null>(sentinel, 'get-master-addr-by-name', masterName);
      return reply ? { host: reply[0], port: Number(reply[1]) } : null;
    };
    const liveSentinels = () => sentinels.filter((sentinel) => sentinel.child.exitCode === null);

    await waitUntil(
      async () => {
        for (const sentinel of sentinels) {
          if ((await masterAddress(sentinel))?.port !== master.port) return false;
          const state = fieldsOf(await askSentinel<string[]>(sentinel, 'master', masterName));
          if (Number(state['num-slaves']) < 1 || Number(state['num-other-sentinels']) < SENTINELS - 1) return false;
          const replicas = (await askSentinel<string[][]>(sentinel, 'replicas', masterName)).map(fieldsOf);
          const replicaUp = replicas.some(
            (r) => Number(r.port) === replica.port && !r.flags?.includes('down') && r['master-link-status'] === 'ok',
          );
          if (!replicaUp) return false;
        }
        return true;
      },
      {
        timeoutMs: TOPOLOGY_DEADLINE_MS,
        intervalMs: 100,
        message: 'the sentinels never agreed on the master, its replica and each other',
      },
    );

    const currentMaster = async (): Promise<RedisAddress> => {
      for (const sentinel of liveSentinels()) {
        try {
          const address = await masterAddress(sentinel);
          if (address) return address;
        } catch {
          // This sentinel does not answer; ask the next.
        }
      }
      throw new Error(`no sentinel names a master for ${masterName}`);
    };

    return {
      masterName,
      sentinelsSetting: sentinels.map((sentinel) => `${HOST}:${sentinel.port}`).join(','),
      currentMaster,
      async killMaster() {
        const { port } = await currentMaster();
        const node = dataNodes.find((candidate) => candidate.port === port);
        if (!node) throw new Error(`the master on port ${port} is not a node of this topology`);
        await node.kill();
      },
      waitForFailover: (previous) =>
        waitUntil(
          async () => {
            const named = await Promise.all(
              liveSentinels().map((sentinel) => masterAddress(sentinel).catch(() => null)),
            );
            const first = named[0];
            if (!first || first.port === previous.port) return null;
            if (!named.every((address) => address?.host === first.host && address.port === first.port)) return null;
            const role = await withRedisClient(first.port, (client) => client.role()).catch(() => null);
            return role?.[0] === 'master' ? first : null;
          },
          {
            timeoutMs: TOPOLOGY_DEADLINE_MS,
            intervalMs: 100,
            message: `the sentinels never promoted a new master after ${previous.host}:${previous.port}`,
          },
        ),
      stop: () => owned.release(),
    };
  } catch (error) {
    await owned.release();
    throw error;
  }
}

/** A sentinel's flat `[field, value, field, value, ...]` reply as a record. */
function fieldsOf(flat: readonly string[]): Record<string, string | undefined> {
  const fields: Record<string, string | undefined> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1];
  return fields;
}

/** The processes and directories a topology owns, released together, also when start fails. */
class OwnedResources {
  private readonly processes: RedisProcess[] = [];
  private readonly dirs: string[] = [];

  track(redisProcess: RedisProcess): RedisProcess {
    this.processes.push(redisProcess);
    return redisProcess;
  }

  async tempDir(prefix: string): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    this.dirs.push(dir);
    return dir;
  }

  async release(): Promise<void> {
    await Promise.all(this.processes.splice(0).map((redisProcess) => redisProcess.kill()));
    await Promise.all(this.dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  }
}
