import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as z from 'zod';
import type { IngestInput, IngestItem } from './item.ts';

// Local inputs: files and folders (recursively), and JSONL manifests that give each stored file
// its original URL, fetch time and HTTP headers (the format of ../shared/corpus/manifest.jsonl).

export const MANIFEST_NAME = 'manifest.jsonl';

const ManifestEntry = z.object({
  path: z.string().min(1),
  url: z.url({ protocol: /^https?$/ }),
  fetched_at: z.string().min(1).optional(),
  headers: z.record(z.string(), z.string()).optional(),
});

function lowerCaseKeys(headers: Record<string, string> = {}): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([key, value]) => [key.toLowerCase(), value]));
}

function fileItem(path: string, url: string, fetchedAt: string | undefined, headers: Record<string, string>, size?: number, mtime?: Date): IngestItem {
  return {
    url,
    fetchedAt: fetchedAt ?? (mtime ?? new Date()).toISOString(),
    headers,
    label: path,
    size,
    read: async () => new Uint8Array(await readFile(path)),
  };
}

/** Entries of a manifest; a bad line is reported and skipped, never the whole manifest. */
export async function* readManifest(file: string): AsyncGenerator<IngestInput> {
  const base = dirname(resolve(file));
  const lines = (await readFile(file, 'utf8')).split('\n');
  for (const [index, line] of lines.entries()) {
    if (!line.trim()) continue;
    const label = `${file}:${index + 1}`;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      yield { label, reason: 'MANIFEST_LINE_INVALID: not JSON' };
      continue;
    }
    const entry = ManifestEntry.safeParse(raw);
    if (!entry.success) {
      yield { label, reason: `MANIFEST_LINE_INVALID: ${entry.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}` };
      continue;
    }
    const path = resolve(base, entry.data.path);
    const info = await stat(path).catch(() => null);
    if (!info?.isFile()) {
      yield { label: path, reason: 'FILE_NOT_FOUND' };
      continue;
    }
    yield fileItem(path, entry.data.url, entry.data.fetched_at, lowerCaseKeys(entry.data.headers), info.size);
  }
}

async function* walk(folder: string, skip: Set<string>): AsyncGenerator<string> {
  const entries = await readdir(folder, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    const path = join(folder, entry.name);
    if (entry.name.startsWith('.')) continue;
    if (entry.isDirectory()) yield* walk(path, skip);
    else if (entry.isFile() && !skip.has(path) && entry.name !== MANIFEST_NAME) yield path;
  }
}

/**
 * Inputs for `fundus ingest PATH...`: a folder with a manifest.jsonl at its top is read through the
 * manifest (files it lists keep their URLs); other files get file:// URLs.
 */
export async function* localInputs(paths: string[], manifests: string[] = []): AsyncGenerator<IngestInput> {
  const listed = new Set<string>();
  for (const manifest of manifests) {
    for await (const input of readManifest(manifest)) {
      if ('read' in input) listed.add(input.label);
      yield input;
    }
  }
  for (const raw of paths) {
    const path = resolve(raw);
    const info = await stat(path).catch(() => null);
    if (!info) {
      yield { label: raw, reason: 'FILE_NOT_FOUND' };
      continue;
    }
    if (info.isFile()) {
      if (!listed.has(path)) yield fileItem(path, pathToFileURL(path).href, undefined, {}, info.size, info.mtime);
      continue;
    }
    const manifest = join(path, MANIFEST_NAME);
    if (existsSync(manifest) && !manifests.map((m) => resolve(m)).includes(manifest)) {
      for await (const input of readManifest(manifest)) {
        if ('read' in input) listed.add(input.label);
        yield input;
      }
    }
    for await (const file of walk(path, listed)) {
      const fileInfo = await stat(file);
      yield fileItem(file, pathToFileURL(file).href, undefined, {}, fileInfo.size, fileInfo.mtime);
    }
  }
}
