import type { ApiKey, Client } from '@botfleet/sdk';
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

export type Permission = ApiKey['permission'];

/** Who is signed in: the SDK client carrying their key, and what that key may do. */
export interface ConsoleSession {
  client: Client;
  key: ApiKey;
  /** Write controls are rendered only when true: a read key sees, and cannot change. */
  canWrite: boolean;
  isAdmin: boolean;
  signOut(reason?: string): void;
}

export const SessionContext = createContext<ConsoleSession | null>(null);

export function useSession(): ConsoleSession {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in console');
  return session;
}

export function permits(permission: Permission, needed: Permission): boolean {
  const order: Permission[] = ['read', 'write', 'admin'];
  return order.indexOf(permission) >= order.indexOf(needed);
}
