import { describe, expect, it } from 'vitest';
import type { StoredDocument } from '../../services/core/document.ts';
import {
  aliasRecord,
  baseToken,
  exactToken,
  fromRecord,
  idKey,
  metaRecord,
  signatureOf,
  termTokens,
  toRecord,
} from '../../services/index/typesense/record.ts';
import {
  collectionSchema,
  INDEX_ONLY_FIELDS,
  rebuildStamp,
  TYPESENSE_SCHEMA_VERSION,
  versionedName,
  versionOf,
} from '../../services/index/typesense/schema.ts';
import { CONTRACT_DOCS, makeDoc } from '../helpers/documents.ts';

describe('typesense collection schema', () => {
  const schema = collectionSchema(`fundus_web_v${TYPESENSE_SCHEMA_VERSION}`);
  const field = (name: string) => schema.fields.find((f) => f.name === name);

  it('indexes the matching, filter and ranking fields with the right types', () => {
    expect(field('terms')).toMatchObject({ type: 'string[]' });
    expect(field('title_terms')).toMatchObject({ type: 'string[]' });
    expect(field('title_exact')).toMatchObject({ type: 'string' });
    expect(field('all_exact')).toMatchObject({ type: 'string' });
    expect(field('host_keys')).toMatchObject({ type: 'string[]' });
    expect(field('document_type')).toMatchObject({ type: 'string' });
    expect(field('topic_key')).toMatchObject({ type: 'string' });
    expect(field('is_news')).toMatchObject({ type: 'bool' });
    expect(field('age_ts')).toMatchObject({ type: 'int64', optional: true });
    expect(field('source_domain')).toMatchObject({ type: 'string', facet: true });
    expect(field('content_hash')).toMatchObject({ type: 'string' });
    expect(field('title_key')).toMatchObject({ type: 'string' });
    expect(field('listed')).toMatchObject({ type: 'bool' });
    expect(field('kind')).toMatchObject({ type: 'string' });
  });

  it('stores the record fields without indexing them (index: false needs optional: true)', () => {
    for (const name of ['title', 'text', 'url', 'dates_json', 'content_json', 'duplicate_of', 'changed_at']) {
      expect(field(name)).toMatchObject({ index: false, optional: true, type: 'string' });
    }
    for (const f of schema.fields) if (f.index === false) expect(f.optional).toBe(true);
  });

  it('has one entry per field name, no nested fields, no extra token separators', () => {
    expect(new Set(schema.fields.map((f) => f.name)).size).toBe(schema.fields.length);
    expect(schema.enable_nested_fields).toBe(false);
    expect(schema.token_separators).toEqual([]);
    // The layout version is in the collection name (schema metadata is not in every server version).
    expect(schema.name).toBe(`fundus_web_v${TYPESENSE_SCHEMA_VERSION}`);
    for (const name of INDEX_ONLY_FIELDS) expect(field(name)?.index).not.toBe(false);
  });

  it('names versioned collections and reads their version back', () => {
    expect(versionedName('fundus_web')).toBe(`fundus_web_v${TYPESENSE_SCHEMA_VERSION}`);
    expect(versionedName('fundus_web', 1, '20261102101500')).toBe('fundus_web_v1_20261102101500');
    expect(versionOf('fundus_web', 'fundus_web_v1')).toBe(1);
    expect(versionOf('fundus_web', 'fundus_web_v2_20261102101500')).toBe(2);
    expect(versionOf('fundus_web', 'fundus_fediverse_v1')).toBeNull();
    expect(versionOf('fundus_web', 'something_else')).toBeNull();
    expect(rebuildStamp(new Date('2026-11-02T10:15:00.123Z'))).toBe('20261102101500');
    expect(() => versionedName('fundus_web', 1, 'now')).toThrow(/14 digits/);
  });
});

describe('typesense records', () => {
  const doc = makeDoc(CONTRACT_DOCS[2]); // Die Bundestagswahl, blog.stadt-a.example, news, modified 2026-09-15

  it('round-trips every stored field', () => {
    const back = fromRecord(toRecord(doc));
    expect(back).toEqual(doc);
    expect(signatureOf(back)).toBe(signatureOf(doc));
  });

  it('round-trips a record with every optional field set', () => {
    const full: StoredDocument = {
      ...doc,
      language: null,
      contentDate: '2016-01-12',
      dates: { json_ld_date_published: '2026-09-01' },
      content: { pages: 3, author: 'A. Autor', keywords: ['Wahl'] },
      topic: null,
      fingerprint: null,
    };
    expect(fromRecord(toRecord(full))).toEqual(full);
  });

  it('indexes exact and base tokens of title and body, title tokens separately', () => {
    const record = toRecord(doc);
    expect(record.terms).toEqual(expect.arrayContaining([exactToken('bundestagswahl'), baseToken('wahl'), exactToken('buergerinnen')]));
    expect(record.title_terms).toEqual(expect.arrayContaining([exactToken('bundestagswahl')]));
    expect(record.title_terms).not.toEqual(expect.arrayContaining([exactToken('buergerinnen')]));
    expect(record.all_exact).toContain('bundestagswahl');
    expect(new Set(record.terms as string[]).size).toBe((record.terms as string[]).length);
  });

  it('keeps every filtered token within [a-z0-9] so Typesense cannot re-tokenize it', () => {
    const record = toRecord(makeDoc({ ...CONTRACT_DOCS[0], title: 'Straße in Köln – café №5', text: Array.from({ length: 60 }, (_, i) => `Wort${i}`).join(' '), topic: 'Freizeit & Sport' }));
    expect(record.title_key).toMatch(/^[0-9a-f]{16}$/);
    const tokens = [...(record.terms as string[]), ...(record.host_keys as string[]), record.topic_key, record.content_hash, record.title_key, record.document_type];
    for (const token of tokens) expect(token).toMatch(/^[a-z0-9]+$/);
  });

  it('files the host under itself and every parent domain down to the main domain', () => {
    expect(toRecord(doc).host_keys).toHaveLength(2); // blog.stadt-a.example, stadt-a.example
  });

  it('stores the age as the later of modified and published, and none when undated', () => {
    expect(toRecord(doc).age_ts).toBe(Date.UTC(2026, 8, 15) / 1000);
    expect(toRecord(makeDoc(CONTRACT_DOCS[3])).age_ts).toBeUndefined();
  });

  it('keeps duplicates stored but out of the search fields and out of listings', () => {
    const duplicate = toRecord({ ...doc, duplicateOf: 'urn:uuid:other' });
    expect(duplicate.listed).toBe(false);
    expect(duplicate.terms).toBeUndefined();
    expect(duplicate.content_hash).toBe(doc.contentHash);
    expect(fromRecord(duplicate).duplicateOf).toBe('urn:uuid:other');
  });

  it('leaves out null values instead of sending null for typed fields', () => {
    const record = toRecord({ ...doc, language: null, topic: null });
    expect(Object.values(record)).not.toContain(null);
    expect('language' in record).toBe(false);
  });

  it('builds alias and meta records that are never listed', () => {
    expect(aliasRecord('urn:uuid:a', 'https://x.example/a', 'urn:uuid:p')).toEqual({
      id: 'alias:urn:uuid:a',
      kind: 'alias',
      listed: false,
      alias_key: idKey('urn:uuid:p'),
      alias_of: 'urn:uuid:p',
      url: 'https://x.example/a',
    });
    expect(metaRecord('2026-11-02T10:00:00.000Z')).toMatchObject({ kind: 'meta', listed: false });
  });

  it('gives distinct tokens to exact and base forms, and to plain and hashed forms', () => {
    expect(exactToken('haus')).not.toBe(baseToken('haus'));
    expect(exactToken('straße')).toMatch(/^y/);
    expect(baseToken('straße')).toMatch(/^c/);
    expect(termTokens({ exact: 'das haus', base: 'das haus' })).toEqual(['xdas', 'xhaus', 'bdas', 'bhaus']);
  });
});
