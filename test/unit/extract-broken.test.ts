import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXTRACTION_ERROR_CODES, ExtractionError, extractDocument } from '../../services/ingest/extract/index.ts';
import { CORPUS as CORPUS_DIR, describeWithCorpus, hasCorpus } from '../helpers/shared-corpus.ts';

const CORPUS = `${CORPUS_DIR}/`;

// What each deliberately broken corpus file must give (corpus README, "broken/").
const EXPECTED: Record<string, string> = {
  'corrupt.docx': 'CORRUPT_FILE',
  'empty.pdf': 'EMPTY_FILE',
  'encrypted-ownerpw-only.pdf': 'ENCRYPTED',
  'encrypted-userpw.pdf': 'ENCRYPTED',
  'junk.html': 'UNSUPPORTED_TYPE',
  'truncated.pdf': 'CORRUPT_FILE',
  'zipbomb.docx': 'DECOMPRESSION_LIMIT',
  'wrong-extension.docx': 'OK:pdf',
};

async function outcome(bytes: Uint8Array, fileName: string, options = {}): Promise<string> {
  try {
    const doc = await extractDocument({ bytes, url: `https://dokumente.example.org/broken/${fileName}`, fileName }, options);
    return `OK:${doc.documentType}`;
  } catch (error) {
    expect(error).toBeInstanceOf(ExtractionError);
    expect(EXTRACTION_ERROR_CODES).toContain((error as ExtractionError).code);
    return (error as ExtractionError).code;
  }
}

describeWithCorpus('every file in the corpus broken/ folder', () => {
  const files = hasCorpus ? readdirSync(`${CORPUS}broken`) : [];
  it('has an expectation for each file', () => {
    expect(files.sort()).toEqual(Object.keys(EXPECTED).sort());
  });
  for (const file of files) {
    it(`${file} -> ${EXPECTED[file]}`, async () => {
      expect(await outcome(readFileSync(`${CORPUS}broken/${file}`), file)).toBe(EXPECTED[file]);
    });
  }

  it('explains why the owner-password PDF is skipped', async () => {
    await expect(extractDocument({ bytes: readFileSync(`${CORPUS}broken/encrypted-ownerpw-only.pdf`), url: 'https://x.example/a.pdf' })).rejects.toThrow(/permissions do not allow text extraction/);
  });
});

describe('broken files made in the test', () => {
  it('empty bytes are EMPTY_FILE, whatever the name', async () => {
    expect(await outcome(new Uint8Array(0), 'a.html')).toBe('EMPTY_FILE');
    expect(await outcome(new Uint8Array(0), 'a.docx')).toBe('EMPTY_FILE');
  });

  it('random bytes are UNSUPPORTED_TYPE under any name', async () => {
    for (const name of ['a.html', 'a.pdf', 'a.docx', 'a.doc', 'a.odt', 'noname']) {
      expect(await outcome(randomBytes(10_000), name)).toBe('UNSUPPORTED_TYPE');
    }
  });

  it('random bytes behind a valid signature are CORRUPT_FILE', async () => {
    const fakePdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(5000)]);
    expect(await outcome(fakePdf, 'a.pdf')).toBe('CORRUPT_FILE');
    const fakeOle = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), randomBytes(5000)]);
    expect(await outcome(fakeOle, 'a.doc')).toBe('CORRUPT_FILE');
    const fakeZip = Buffer.concat([Buffer.from('PK\x03\x04'), randomBytes(5000)]);
    expect(await outcome(fakeZip, 'a.docx')).toBe('CORRUPT_FILE');
    expect(await outcome(fakeZip, 'a.zip')).toBe('UNSUPPORTED_TYPE');
  });

  it('a file over maxBytes is TOO_LARGE before any parsing', async () => {
    const huge = new Uint8Array(3 * 1024 * 1024).fill(0x61);
    expect(await outcome(huge, 'huge.html', { maxBytes: 1024 * 1024 })).toBe('TOO_LARGE');
  });
});
