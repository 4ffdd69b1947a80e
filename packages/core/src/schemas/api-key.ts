import { z } from 'zod';

export const PermissionSchema = z.enum(['read', 'write', 'admin']);
export type Permission = z.infer<typeof PermissionSchema>;

const RANK: Record<Permission, number> = { read: 0, write: 1, admin: 2 };
export const permits = (held: Permission, needed: Permission): boolean => RANK[held] >= RANK[needed];
