export type { Db } from '../client';
