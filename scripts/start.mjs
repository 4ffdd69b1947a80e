// `npm start`: set up what is missing, then run every role (or those in ROLES) in one process.
import { setup, runTs } from './setup.mjs';

const roles = (process.env.ROLES ?? 'api,worker,delivery,scheduler').split(',');
setup({ chromium: roles.includes('worker') });
process.exit(runTs('apps/launcher/src/main.ts'));
