#!/usr/bin/env python3
# SQLite's FTS5 alone, as a floor for the writer's thread: inserts the analysed streams that
# scripts/bench/write.ts --streams wrote into a table laid out as schema.ts lays out documents_fts
# (and its merge settings; without contentless_delete, which Python's older SQLite lacks), in batches of 2500 per commit,
# then 'optimize'. CPU time of this one thread.
#   python3 scripts/bench/fts5-insert.py STREAMS.jsonl [DB_FILE]
import json, os, sqlite3, sys, tempfile, time

rows = [json.loads(line) for line in open(sys.argv[1], encoding='utf-8') if line.strip()]
path = sys.argv[2] if len(sys.argv) > 2 else os.path.join(tempfile.mkdtemp(prefix='fundus-fts5-'), 'fts.sqlite')
db = sqlite3.connect(path, isolation_level=None)
db.executescript('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -65536;')
db.execute("""CREATE VIRTUAL TABLE documents_fts USING fts5(title_exact, body_exact, title_base, body_base, facets,
  content='', tokenize="ascii tokenchars '_'")""")
db.execute("INSERT INTO documents_fts(documents_fts, rank) VALUES ('automerge', 64)")
db.execute("INSERT INTO documents_fts(documents_fts, rank) VALUES ('crisismerge', 64)")
db.execute("INSERT INTO documents_fts(documents_fts, rank) VALUES ('hashsize', 33554432)")
started = time.process_time()
for first in range(0, len(rows), 2500):
    db.execute('BEGIN')
    db.executemany('INSERT INTO documents_fts(rowid, title_exact, body_exact, title_base, body_base, facets) VALUES (?, ?, ?, ?, ?, ?)',
                   [(first + i + 1, *row) for i, row in enumerate(rows[first:first + 2500])])
    db.execute('COMMIT')
inserting = time.process_time() - started
started = time.process_time()
db.execute("INSERT INTO documents_fts(documents_fts) VALUES ('optimize')")
print(f'SQLite {sqlite3.sqlite_version} FTS5 alone: {len(rows)} records, insert {inserting:.2f} CPU s '
      f'({inserting / len(rows) * 1e6:.0f} µs a record), optimize {time.process_time() - started:.2f} CPU s')
db.close()
if len(sys.argv) <= 2:
    for suffix in ('', '-wal', '-shm'):
        if os.path.exists(path + suffix): os.remove(path + suffix)
    os.rmdir(os.path.dirname(path))
