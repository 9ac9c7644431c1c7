import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The page's script, style sheet and icon are plain files in services/search-web/static/. tsc does
// not copy them to dist/, so they are found from the project folder, which is the same whether this
// module runs from source or compiled under dist/.

export interface StaticAsset {
  body: Buffer;
  type: string;
  /** Strong validator: browsers revalidate (no-cache) and get a 304 while the file is unchanged. */
  etag: string;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

export const STATIC_FILES = ['search.js', 'render.js', 'search.css', 'favicon.svg'] as const;

/** The folder holding package.json of this project, found by walking up from this module. */
export function findProjectRoot(from: string = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === 'fundus') return dir;
  }
  throw new Error(`cannot find the fundus project folder above ${from}`);
}

export function staticDir(): string {
  return join(findProjectRoot(), 'services', 'search-web', 'static');
}

/** All assets, read once at start-up (a missing file stops start-up, not the first visitor). */
export function loadStaticAssets(dir: string = staticDir()): Map<string, StaticAsset> {
  const assets = new Map<string, StaticAsset>();
  for (const name of STATIC_FILES) {
    const body = readFileSync(join(dir, name));
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"`;
    assets.set(name, { body, type: TYPES[name.slice(name.lastIndexOf('.'))], etag });
  }
  return assets;
}
