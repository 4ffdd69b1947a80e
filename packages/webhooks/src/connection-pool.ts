import http from 'node:http';
import https from 'node:https';
import { createGuardedLookup } from './destination-guard';

/**
 * Keep-alive connections per destination (host and port), reused across deliveries and logins,
 * so a busy receiver costs one TCP (and TLS) handshake per connection rather than per request.
 *
 * A pooled socket is found by host:port, not by how its address was checked, so a pool serves
 * one private-network setting only: with the private network closed, every socket it opens went
 * through the guarded lookup, at connect time, and a reused socket is one that was checked.
 */
export interface ConnectionPool {
  readonly allowPrivateNetwork: boolean;
  readonly http: http.Agent;
  readonly https: https.Agent;
  /**
   * For a role's shutdown: closes the idle sockets, and each busy one once its request ends.
   * Requests in flight are left to finish or time out on their own; a stopping role abandons
   * them (their lease on the row stands), it does not cut them short.
   */
  close(): void;
}

export interface ConnectionPoolOptions {
  allowPrivateNetwork: boolean;
  /** Sockets open at once to one destination (default 32); more requests wait for one. */
  maxSocketsPerDestination?: number;
  /** How long an idle socket is kept for the next request (default 5 s). */
  idleTimeoutMs?: number;
}

export function createConnectionPool(options: ConnectionPoolOptions): ConnectionPool {
  const agentOptions: http.AgentOptions = {
    keepAlive: true,
    maxSockets: options.maxSocketsPerDestination ?? 32,
    maxFreeSockets: 8,
    // Most recently used first: the warmest sockets serve, idle ones time out and close.
    scheduling: 'lifo',
    // Idle sockets close after this (receivers often close theirs after 5 s; ours go first).
    timeout: options.idleTimeoutMs ?? 5_000,
    ...(options.allowPrivateNetwork ? {} : { lookup: createGuardedLookup() }),
  };
  const httpAgent = new http.Agent(agentOptions);
  const httpsAgent = new https.Agent(agentOptions);
  return {
    allowPrivateNetwork: options.allowPrivateNetwork,
    http: httpAgent,
    https: httpsAgent,
    close() {
      for (const agent of [httpAgent, httpsAgent]) {
        // The documented hook: answering false makes the agent close a socket freed from now on
        // instead of keeping it (@types/node declares it void; Node reads a boolean).
        agent.keepSocketAlive = () => false;
        for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
      }
    },
  };
}
