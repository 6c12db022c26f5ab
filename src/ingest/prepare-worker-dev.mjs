// Worker entry when Dossier runs from its TypeScript sources (tests, development): worker threads do
// not inherit the parent's tsx loader, so this registers it before loading the .ts worker. Built
// code (dist/) starts prepare-worker-main.js directly and never loads this file or tsx.
import { register } from 'tsx/esm/api';

register();
await import('./prepare-worker-main.ts');
