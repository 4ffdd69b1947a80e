import { createApiKey } from '@botfleet/sdk';
import { parseArgs } from 'node:util';
import type { CommandContext } from '../context';
import { print } from '../output';
import { UsageError } from '../usage-error';

const PERMISSIONS = ['read', 'write', 'admin'] as const;
type Permission = (typeof PERMISSIONS)[number];
const isPermission = (value: string): value is Permission => (PERMISSIONS as readonly string[]).includes(value);

/**
 * `botfleet keys create --name N --permission read|write|admin`: a key in the organization of the
 * (admin) key in use, through the API. The key is printed once; botfleet keeps only its hash.
 * (The first admin key of an organization comes from the server: `botfleet admin keys create`.)
 */
export async function createKeyCommand({ client, output, args }: CommandContext): Promise<void> {
  const { values } = parseArgs({ args, options: { name: { type: 'string' }, permission: { type: 'string' } } });
  const permission = values.permission ?? 'read';
  if (!isPermission(permission)) throw new UsageError('--permission is read, write or admin');
  if (!values.name) throw new UsageError('keys create needs --name');
  const { data } = await createApiKey({ client, body: { name: values.name, permission }, throwOnError: true });
  print(
    output,
    data,
    (key) => `${key.key}\n(id ${key.id}, ${key.permission}; shown only now: store it somewhere safe)`,
  );
}
