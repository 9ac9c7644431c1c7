import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../services/cli/paths.ts';

// The arrows between the parts of services/ (docs/architecture.md): each part may import only the
// parts below it. Read from the real import statements, so a new arrow running up fails here.

const SERVICES = resolve(projectRoot(), 'services');

const ALLOWED: Record<string, string[]> = {
  core: [],
  access: ['core'],
  index: ['core'],
  ingest: ['core'],
  http: ['core', 'access'],
  gateway: ['core', 'access', 'http'],
  'search-web': ['core', 'access', 'http'],
  admin: ['access', 'http'],
  cli: ['core', 'access', 'index', 'ingest', 'http', 'gateway', 'search-web', 'admin'],
};

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (entry.name.endsWith('.ts')) yield path;
  }
}

function arrows(): { from: string; to: string; file: string }[] {
  const found: { from: string; to: string; file: string }[] = [];
  for (const file of sourceFiles(SERVICES)) {
    const from = relative(SERVICES, file).split('/')[0];
    for (const match of readFileSync(file, 'utf8').matchAll(/(?:\bfrom|\bimport)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const to = relative(SERVICES, resolve(dirname(file), match[1])).split('/')[0];
      if (to !== from) found.push({ from, to, file: relative(SERVICES, file) });
    }
  }
  return found;
}

describe('layers of services/', () => {
  const all = arrows();

  it('finds the imports it checks', () => {
    expect(all.some((a) => a.from === 'cli' && a.to === 'access')).toBe(true);
    expect(all.length).toBeGreaterThan(50);
  });

  it('every part imports only the parts below it (access never reaches up into cli)', () => {
    const wrong = all.filter((a) => !(ALLOWED[a.from] ?? []).includes(a.to)).map((a) => `${a.file} -> ${a.to}`);
    expect(wrong).toEqual([]);
  });
});
