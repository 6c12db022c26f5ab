// Worker thread entry for parallel ingestion: plain JavaScript that loads the TypeScript sources
// through tsx, the same way bin/dossier.js does.
import { register } from 'tsx/esm/api';

register();
await import('./prepare-worker-main.ts');
