export { generateScript } from './generate-script';
