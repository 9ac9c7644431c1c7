import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The URL of a module next to this one, compiled (.js) or from source (.ts), for worker threads. */
export function siblingUrl(name: string): URL {
  const own = import.meta.url;
  for (const extension of own.endsWith('.ts') ? ['.ts', '.js'] : ['.js', '.ts']) {
    const url = new URL(`./${name}${extension}`, own);
    if (existsSync(fileURLToPath(url))) return url;
  }
  throw new Error(`${name} not found next to ${own}`);
}
