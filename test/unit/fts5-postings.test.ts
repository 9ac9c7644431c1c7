import { describe, expect, it } from 'vitest';
import { DatabaseSync } from 'node:sqlite';
import { FTS_COLUMNS, readTermPostings } from '../../services/index/sqlite/fts5-postings.ts';
import { createSchema } from '../../services/index/sqlite/schema.ts';

// The score lists count each word's occurrences per document and column straight from FTS5's
// pages; FTS5's own view of them (fts5vocab 'instance') is the reference. Long texts put words at
// positions past 127, whose position varints take two bytes or more.
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

describe('FTS5 postings read from the pages', () => {
  it('count every word per document and column as FTS5 itself does, also far into long texts', () => {
    const db = new DatabaseSync(':memory:');
    createSchema(db);
    const random = seeded(7);
    const words = Array.from({ length: 300 }, (_, i) => `w${i.toString(36)}`);
    const text = (length: number) => Array.from({ length }, () => words[Math.floor(random() ** 3 * words.length)]).join(' ');
    const insert = db.prepare('INSERT INTO documents_fts (rowid, title_exact, body_exact, title_base, body_base, facets) VALUES (?, ?, ?, ?, ?, ?)');
    for (let rowid = 1; rowid <= 400; rowid++) {
      // Some bodies of up to 40,000 words: positions far past a one-byte varint.
      const long = rowid % 37 === 0 ? 40_000 : 1 + Math.floor(random() * 600);
      insert.run(rowid, text(3), text(long), text(5), text(long), 'a_all');
    }
    db.exec(`INSERT INTO documents_fts(documents_fts) VALUES ('optimize')`);

    const read = new Map<string, number>();
    readTermPostings(db, ({ token, rowids, counts }) => {
      rowids.forEach((rowid, i) => {
        for (let column = 0; column < FTS_COLUMNS; column++) if (counts[i * FTS_COLUMNS + column]) read.set(`${token} ${rowid} ${column}`, counts[i * FTS_COLUMNS + column]);
      });
    });
    db.exec(`CREATE VIRTUAL TABLE temp.instances USING fts5vocab(main, documents_fts, 'instance')`);
    const expected = new Map<string, number>();
    const columns = ['title_exact', 'body_exact', 'title_base', 'body_base', 'facets'];
    for (const row of db.prepare('SELECT term, doc, col, count(*) AS n FROM temp.instances GROUP BY term, doc, col').iterate() as Iterable<{ term: string; doc: number; col: string; n: number }>) {
      expected.set(`${row.term} ${row.doc} ${columns.indexOf(row.col)}`, row.n);
    }
    expect(expected.size).toBeGreaterThan(10_000);
    expect(read).toEqual(expected);
    db.close();
  });
});
