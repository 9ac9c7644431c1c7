import { closeSync, constants, existsSync, fstatSync, openSync, readFileSync, realpathSync, statSync, type Dirent, type Stats } from 'node:fs';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import * as z from 'zod';
import type { IngestInput, IngestItem } from './item.ts';

// Local inputs: files and folders (recursively), and JSONL manifests that give each stored file
// its original URL, fetch time and HTTP headers (the format of ../shared/corpus/manifest.jsonl).
//
// Hostile trees are reported, never followed blindly, and never end the run:
// - a manifest's paths stay inside the manifest's folder (no "../", no absolute path, no symbolic
//   link whose real path leaves the folder): MANIFEST_PATH_OUTSIDE;
// - names that are not valid UTF-8: BAD_FILE_NAME (skipped: they could not be named in a URL or a report);
// - FIFOs, sockets and devices, given as a path or met in a folder: SPECIAL_FILE (reading a FIFO blocks);
// - symbolic links met in a folder are followed only to a regular file inside the input folder;
//   links to folders (loops), outside the folder or dangling: SYMLINK_SKIPPED;
// - a path given on the command line that does not exist: PATH_NOT_FOUND (the command then exits 1).
//
// Plain local files get a file: URL without the server's path: file:///<input folder's name>/<path
// inside it> (a single file given as a path: file:///<its name>). It is the same on every machine
// and for every working directory, so document ids stay the same when a collection is moved.

export const MANIFEST_NAME = 'manifest.jsonl';

const ManifestEntry = z.object({
  path: z.string().min(1),
  url: z.url({ protocol: /^https?$/ }),
  fetched_at: z.string().min(1).optional(),
  headers: z.record(z.string(), z.string()).optional(),
});

const utf8 = new TextDecoder('utf-8', { fatal: true });
const lossy = new TextDecoder('utf-8');

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
    // Read at once: fs/promises' readFile (open, fstat, read, close as four promises) cost more CPU
    // than extracting a small page; the file is known to be regular and at most maxBytes large.
    read: async () => {
      // A view of the bytes read, not a copy (new Uint8Array(buffer) would copy every file once more).
      const bytes = readRegularFile(path);
      return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
    },
  };
}

/** The bytes of a regular file; opened without blocking, so that a file replaced by a FIFO since it was listed cannot hang the run. */
function readRegularFile(path: string): Buffer {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile()) throw Object.assign(new Error('not a regular file any more'), { code: 'SPECIAL_FILE' });
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The file: URL of a file inside an input folder `root` (see the top of this file). */
export function localFileUrl(root: string, path: string): string {
  const inside = relative(root, path).split(sep);
  const segments = [basename(root), ...inside].filter(Boolean).map((segment) => encodeURIComponent(segment));
  return `file:///${segments.join('/')}`;
}

/** What kind of special file this is, or null for a regular file or folder. */
function specialKind(info: { isFIFO(): boolean; isSocket(): boolean; isBlockDevice(): boolean; isCharacterDevice(): boolean }): string | null {
  if (info.isFIFO()) return 'a FIFO';
  if (info.isSocket()) return 'a socket';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isCharacterDevice()) return 'a character device';
  return null;
}

function isInside(folder: string, path: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path) ?? null;
  } catch {
    return null;
  }
}

function realPathOrNull(path: string): string | null {
  try {
    return realpathSync.native(path);
  } catch {
    return null;
  }
}

/** Entries of a manifest; a bad line is reported and skipped, never the whole manifest. */
export async function* readManifest(file: string): AsyncGenerator<IngestInput> {
  const base = dirname(resolve(file));
  // A manifest that is a FIFO or device would block or never end: regular files only.
  const info = await stat(file).catch((error: NodeJS.ErrnoException) => error);
  if (info instanceof Error) {
    yield { label: file, reason: info.code === 'ENOENT' ? 'PATH_NOT_FOUND: no such manifest' : `MANIFEST_UNREADABLE: ${info.code ?? info.message}` };
    return;
  }
  if (!info.isFile()) {
    yield { label: file, reason: `SPECIAL_FILE: the manifest is ${specialKind(info) ?? 'not a regular file'}` };
    return;
  }
  const realBase = await realpath(base);
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
    const given = entry.data.path;
    if (isAbsolute(given) || given.includes('\0')) {
      yield { label, reason: `MANIFEST_PATH_OUTSIDE: "${given}" is absolute; paths are relative to the manifest's folder` };
      continue;
    }
    const path = resolve(base, given);
    if (!isInside(base, path)) {
      yield { label, reason: `MANIFEST_PATH_OUTSIDE: "${given}" leaves the manifest's folder` };
      continue;
    }
    // Synchronous: two calls per line, each far cheaper than its promise (a manifest of thousands of lines).
    const real = realPathOrNull(path);
    if (real === null) {
      yield { label: path, reason: 'FILE_NOT_FOUND' };
      continue;
    }
    if (!isInside(realBase, real)) {
      yield { label, reason: `MANIFEST_PATH_OUTSIDE: "${given}" is a link to a file outside the manifest's folder` };
      continue;
    }
    const info = statOrNull(real);
    if (!info?.isFile()) {
      const special = info && specialKind(info);
      yield { label: path, reason: special ? `SPECIAL_FILE: ${special}, not a document` : 'FILE_NOT_FOUND' };
      continue;
    }
    yield fileItem(path, entry.data.url, entry.data.fetched_at, lowerCaseKeys(entry.data.headers), info.size);
  }
}

/**
 * The files of a folder, depth first in name order; what cannot be ingested comes back as a
 * problem. `root` is the input folder (symbolic links may lead to files inside it only).
 */
async function* walk(folder: string, root: { path: string; real: string }, skip: Set<string>): AsyncGenerator<{ path: string } | { label: string; reason: string }> {
  let entries: Dirent<Buffer>[];
  try {
    entries = await readdir(folder, { withFileTypes: true, encoding: 'buffer' });
  } catch (error) {
    yield { label: folder, reason: `FOLDER_UNREADABLE: ${(error as NodeJS.ErrnoException).code ?? String(error)}` };
    return;
  }
  entries.sort((a, b) => Buffer.compare(a.name, b.name));
  for (const entry of entries) {
    let name: string;
    try {
      name = utf8.decode(entry.name);
    } catch {
      yield { label: join(folder, lossy.decode(entry.name)), reason: 'BAD_FILE_NAME: the name is not valid UTF-8' };
      continue;
    }
    const path = join(folder, name);
    // Hidden files, and manifests (read as manifests at an input folder's top, never as documents).
    if (name.startsWith('.') || name === MANIFEST_NAME) continue;
    if (entry.isDirectory()) {
      yield* walk(path, root, skip);
      continue;
    }
    if (entry.isSymbolicLink()) {
      const real = await realpath(path).catch(() => null);
      const info = real && (await stat(real).catch(() => null));
      if (!real || !info) yield { label: path, reason: 'SYMLINK_SKIPPED: the link points nowhere' };
      else if (!isInside(root.real, real)) yield { label: path, reason: 'SYMLINK_SKIPPED: the link points outside the input folder' };
      else if (!info.isFile()) yield { label: path, reason: 'SYMLINK_SKIPPED: links are followed to files only' };
      else if (!skip.has(path)) yield { path };
      continue;
    }
    const special = specialKind(entry);
    if (special) {
      yield { label: path, reason: `SPECIAL_FILE: ${special}, not a document` };
      continue;
    }
    if (entry.isFile() && !skip.has(path)) yield { path };
  }
}

/**
 * Inputs for `fundus ingest PATH...`: a folder with a manifest.jsonl at its top is read through the
 * manifest (files it lists keep their URLs); other files get file: URLs (localFileUrl).
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
      yield { label: raw, reason: 'PATH_NOT_FOUND: no such file or folder' };
      continue;
    }
    if (info.isFile()) {
      if (!listed.has(path)) yield fileItem(path, localFileUrl(dirname(path), path), undefined, {}, info.size, info.mtime);
      continue;
    }
    if (!info.isDirectory()) {
      yield { label: raw, reason: `SPECIAL_FILE: ${specialKind(info) ?? 'not a regular file'}, not a document` };
      continue;
    }
    const manifest = join(path, MANIFEST_NAME);
    if (existsSync(manifest) && !manifests.map((m) => resolve(m)).includes(manifest)) {
      for await (const input of readManifest(manifest)) {
        if ('read' in input) listed.add(input.label);
        yield input;
      }
    }
    const root = { path, real: await realpath(path) };
    for await (const found of walk(path, root, listed)) {
      if (!('path' in found)) {
        yield found;
        continue;
      }
      // The file may have gone (or become something else) since the folder was read.
      const fileInfo = await stat(found.path).catch(() => null);
      if (!fileInfo?.isFile()) {
        yield { label: found.path, reason: 'FILE_NOT_FOUND' };
        continue;
      }
      yield fileItem(found.path, localFileUrl(path, found.path), undefined, {}, fileInfo.size, fileInfo.mtime);
    }
  }
}
