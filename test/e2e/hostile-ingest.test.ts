import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentIdForUrl } from '../../services/core/urls.ts';
import { SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import { runFundus } from '../helpers/processes.ts';

// Hostile files through `fundus ingest` as a process (issue 19): every bad input is reported with a
// reason and skipped, the run goes on, nothing outside the input folder is read, nothing printed
// can drive the terminal.

const html = (title: string, body: string) =>
  `<!doctype html><html lang="de"><head><meta charset="utf-8"><title>${title}</title></head><body><main><h1>${title}</h1><p>${body}</p></main></body></html>`;

const CONTENT_TYPES =
  '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';

/** A DOCX whose document.xml is a real paragraph followed by ~1 MB of an opening that never ends. */
function hostileDocx(word: string, run: string): Uint8Array {
  const xml = `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Bericht über ${word} in der Gemeinde</w:t></w:r></w:p>${run.repeat(Math.ceil(2 ** 20 / run.length))}`;
  // Stored, not deflated: the file itself is the megabyte (no zip-bomb limit involved).
  return zipSync({ '[Content_Types].xml': strToU8(CONTENT_TYPES), 'word/document.xml': strToU8(xml) }, { level: 0 });
}

/** The same for an ODT's content.xml. */
function hostileOdt(word: string, run: string): Uint8Array {
  const xml = `<?xml version="1.0"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text><text:p>Bericht über ${word} in der Gemeinde</text:p>${run.repeat(Math.ceil(2 ** 20 / run.length))}`;
  return zipSync({ mimetype: [strToU8('application/vnd.oasis.opendocument.text'), { level: 0 }], 'content.xml': strToU8(xml) }, { level: 0 });
}

async function documentsIn(data: string): Promise<{ count: number; texts: string }> {
  const index = new SqliteIndex({ file: join(data, 'index.sqlite'), readOnly: true });
  try {
    const { hits } = await index.search({ terms: [], order: 'newest', limit: 100, offset: 0, countBudgetMs: 1000 });
    return { count: (await index.stats()).documents, texts: hits.map((hit) => `${hit.document.url} ${hit.document.title} ${hit.document.text}`).join('\n') };
  } finally {
    await index.close();
  }
}

describe('fundus ingest with hostile files', () => {
  const base = mkdtempSync(join(tmpdir(), 'fundus-hostile-'));
  const input = join(base, 'input');
  const outside = join(base, 'outside');
  let socketServer: Server;

  beforeAll(async () => {
    mkdirSync(join(input, 'sub'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(outside, 'geheim.html'), html('Geheim', 'Quittenmarmelade liegt außerhalb des Eingabeordners.'));
    writeFileSync(join(input, 'gut.html'), html('Gute Seite', 'Die Bücherei der Gemeinde leiht Bücher aus.'));
    writeFileSync(join(input, 'sub', 'ziel.html'), html('Verlinktes Ziel', 'Ein Ziel innerhalb des Ordners.'));
    // A name that is not UTF-8 (Latin-1 "ü"), one with an ANSI escape sequence.
    writeFileSync(Buffer.concat([Buffer.from(join(input, 'gr')), Buffer.from([0xfc]), Buffer.from('n.html')]), html('Latin-1', 'Grün'));
    writeFileSync(join(input, 'farbe\x1b[31mROT\x1b]0;titel\x07.pdf'), '%PDF-1.4 abgeschnitten');
    execFileSync('mkfifo', [join(input, 'warteschlange.html')]);
    socketServer = createServer();
    await new Promise<void>((resolve) => socketServer.listen(join(input, 'steckdose.html'), resolve));
    symlinkSync(join(outside, 'geheim.html'), join(input, 'nach-draussen.html'));
    symlinkSync(join(input, 'sub', 'ziel.html'), join(input, 'nach-innen.html'));
    symlinkSync(join(input, 'sub'), join(input, 'ordner-link'));
    symlinkSync(join(input, 'fehlt.html'), join(input, 'ins-leere.html'));
  });
  afterAll(() => new Promise<void>((resolve) => socketServer.close(() => resolve())));

  it('reports bad names, special files and escaping links with a reason, skips them and ingests the rest', async () => {
    const data = mkdtempSync(join(tmpdir(), 'fundus-hostile-data-'));
    const fifo = join(base, 'rohr');
    execFileSync('mkfifo', [fifo]);
    const run = await runFundus(['ingest', '--data', data, input, fifo, '/dev/null']);
    expect(run.code, run.stderr).toBe(0);
    const out = run.stderr + run.stdout;
    expect(out).toMatch(/gr\ufffdn\.html: BAD_FILE_NAME: the name is not valid UTF-8/);
    expect(out).toMatch(/warteschlange\.html: SPECIAL_FILE: a FIFO/);
    expect(out).toMatch(/steckdose\.html: SPECIAL_FILE: a socket/);
    expect(out).toMatch(/rohr: SPECIAL_FILE: a FIFO/);
    expect(out).toMatch(/\/dev\/null: SPECIAL_FILE: a character device/);
    expect(out).toMatch(/nach-draussen\.html: SYMLINK_SKIPPED: the link points outside the input folder/);
    expect(out).toMatch(/ordner-link: SYMLINK_SKIPPED: links are followed to files only/);
    expect(out).toMatch(/ins-leere\.html: SYMLINK_SKIPPED: the link points nowhere/);
    // Control characters are shown, not sent to the terminal.
    expect(out).not.toMatch(/[\x07\x1b]/);
    expect(out).toMatch(/farbe\\x1b\[31mROT\\x1b\]0;titel\\x07\.pdf: [A-Z_]+/);
    // gut.html, sub/ziel.html and the link to it inside the folder (a duplicate).
    expect(run.stdout).toMatch(/read 12, added 2, updated 0, unchanged 0, duplicates 1/);
    const { count, texts } = await documentsIn(data);
    expect(count).toBe(2); // the duplicate is an alias of its primary
    expect(texts).not.toContain('Quittenmarmelade');
    // Local files are named by their place in the input folder, not by the server's path.
    expect(texts).toContain('file:///input/gut.html');
    expect(texts).not.toContain(base);
  }, 120_000);

  it('confines manifest paths to the manifest folder', async () => {
    const folder = join(base, 'mit-manifest');
    mkdirSync(folder);
    writeFileSync(join(folder, 'seite.html'), html('Seite aus dem Manifest', 'Die Satzung der Gemeinde.'));
    symlinkSync(join(outside, 'geheim.html'), join(folder, 'link.html'));
    const lines = [
      { path: 'seite.html', url: 'https://gemeinde.example/seite' },
      { path: '../outside/geheim.html', url: 'https://gemeinde.example/a' },
      { path: 'unter/../../outside/geheim.html', url: 'https://gemeinde.example/b' },
      { path: join(outside, 'geheim.html'), url: 'https://gemeinde.example/c' },
      { path: 'link.html', url: 'https://gemeinde.example/d' },
    ];
    writeFileSync(join(folder, 'manifest.jsonl'), lines.map((line) => JSON.stringify(line)).join('\n'));
    // A folder whose manifest.jsonl is a FIFO (reading it would block for ever).
    const fifoFolder = join(base, 'fifo-manifest');
    mkdirSync(fifoFolder);
    execFileSync('mkfifo', [join(fifoFolder, 'manifest.jsonl')]);
    writeFileSync(join(fifoFolder, 'x.html'), html('Neben dem Rohr', 'Eine Seite neben einem Manifest, das keine Datei ist.'));
    const data = mkdtempSync(join(tmpdir(), 'fundus-hostile-manifest-'));
    const run = await runFundus(['ingest', '--data', data, '--manifest', join(folder, 'manifest.jsonl'), fifoFolder]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/fifo-manifest\/manifest\.jsonl: SPECIAL_FILE: the manifest is a FIFO/);
    expect(run.stderr.match(/MANIFEST_PATH_OUTSIDE/g)).toHaveLength(4);
    expect(run.stderr).toMatch(/"\.\.\/outside\/geheim\.html" leaves the manifest's folder/);
    expect(run.stderr).toMatch(/is absolute/);
    expect(run.stderr).toMatch(/"link\.html" is a link to a file outside the manifest's folder/);
    expect(run.stdout).toMatch(/read 7, added 2\b/);
    const { count, texts } = await documentsIn(data);
    expect(count).toBe(2);
    expect(texts).not.toContain('Quittenmarmelade');
  }, 120_000);

  it('scans DOCX and ODT parts with megabyte runs of unterminated comments, CDATA and processing instructions in linear time', async () => {
    const folder = join(base, 'docx');
    mkdirSync(folder);
    writeFileSync(join(folder, 'kommentar.docx'), hostileDocx('Kommentare', '<!--'));
    writeFileSync(join(folder, 'cdata.docx'), hostileDocx('Zeichendaten', '<![CDATA['));
    writeFileSync(join(folder, 'anweisung.docx'), hostileDocx('Anweisungen', '<?'));
    writeFileSync(join(folder, 'tags.docx'), hostileDocx('Tags', '<w:t a="'));
    writeFileSync(join(folder, 'kommentar.odt'), hostileOdt('Notizen', '<!--'));
    const data = mkdtempSync(join(tmpdir(), 'fundus-hostile-docx-'));
    // Before the fix a 7 KB file of such runs took more than 30 s: each of these 1 MB files would
    // hit this time limit by hours. The bound is generous (a loaded machine), the point is that it
    // is not hit at all.
    const run = await runFundus(['ingest', '--data', data, '--timeout-ms', '60000', folder]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/TIMEOUT/);
    expect(run.stdout).toMatch(/read 5, added 5/);
    const { texts } = await documentsIn(data);
    for (const word of ['Kommentare', 'Zeichendaten', 'Anweisungen', 'Tags', 'Notizen']) expect(texts).toContain(`Bericht über ${word} in der Gemeinde`);
  }, 180_000);

  it('stores URLs without user:password credentials, with the same ids as without them', async () => {
    const folder = join(base, 'zugangsdaten');
    mkdirSync(folder);
    writeFileSync(join(folder, 'a.html'), html('Seite mit Zugangsdaten', 'Die Satzung der Gemeinde über Gebühren.'));
    writeFileSync(
      join(folder, 'b.html'),
      html('Kanonische Seite', 'Die Bücherei der Gemeinde hat neue Öffnungszeiten.').replace('</head>', '<link rel="canonical" href="https://leser:kennwort@gemeinde.example/kanon"></head>'),
    );
    const lines = [
      { path: 'a.html', url: 'https://nutzer:geheim@gemeinde.example/seite' },
      { path: 'b.html', url: 'https://gemeinde.example/kopie' },
    ];
    writeFileSync(join(folder, 'manifest.jsonl'), lines.map((line) => JSON.stringify(line)).join('\n'));
    const data = mkdtempSync(join(tmpdir(), 'fundus-hostile-credentials-'));
    const run = await runFundus(['ingest', '--data', data, '--quiet', folder]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/added 2/);
    const index = new SqliteIndex({ file: join(data, 'index.sqlite'), readOnly: true });
    try {
      const plain = await index.getDocument(documentIdForUrl('https://gemeinde.example/seite'));
      expect(plain?.url).toBe('https://gemeinde.example/seite');
      const canonical = await index.getDocument(documentIdForUrl('https://gemeinde.example/kanon'));
      expect(canonical?.url).toBe('https://gemeinde.example/kanon');
      expect(JSON.stringify([plain, canonical])).not.toMatch(/geheim|kennwort|nutzer|leser/);
    } finally {
      await index.close();
    }
  }, 60_000);

  it('fails with exit code 1 when a path given does not exist, after ingesting the others', async () => {
    const data = mkdtempSync(join(tmpdir(), 'fundus-hostile-missing-'));
    const run = await runFundus(['ingest', '--data', data, '/nonexistent/\x1b[2Jweg', join(input, 'gut.html')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/skipped \/nonexistent\/\\x1b\[2Jweg: PATH_NOT_FOUND/);
    expect(run.stderr).not.toContain('\x1b');
    expect(run.stdout).toMatch(/read 2, added 1/);
  }, 60_000);
});
