import { basename, extname } from 'node:path';

export function fileStem(path: string): string {
  const name = basename(path);
  return name.slice(0, name.length - extname(name).length) || name;
}
