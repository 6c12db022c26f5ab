#!/usr/bin/env node
// Runs the TypeScript sources directly (tsx), so `npm install` is the whole setup.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
