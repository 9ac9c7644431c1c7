#!/usr/bin/python3
"""Xapian as an in-process peer of the search benchmark (scripts/bench/search.ts).

Indexes the same records as Fundus (only the index's primary documents, so that duplicates are
collapsed alike, without positions: no query needs them) with the German stemmer, the title weighted ten times like Fundus's bm25 weights,
BM25 with FTS5's k1 = 1.2 and b = 0.75, and answers the same queries on one thread: every word
must match (default AND), top `limit` from `offset`, the URLs read from the documents. Filters are
boolean terms (type, source and its subdomains, topic) and a value range (age). Prints JSON.

  /usr/bin/python3 scripts/bench/lib/xapian-peer.py --records FILE --queries FILE --db DIR \
      [--only FILE] [--rounds N] [--max-seconds S] [--reuse]

Needs the Debian package python3-xapian (Xapian 1.4): apt-get install python3-xapian.
"""
import argparse
import json
import os
import resource
import shutil
import sys
import time
from urllib.parse import urlsplit

import xapian

TITLE_WEIGHT = 10  # wdf increment of title words: FTS5's column weights are title 10, body 1
AGE_SLOT = 0


def host_suffixes(host):
    parts = host.split(".")
    return [".".join(parts[i:]) for i in range(len(parts) - 1)] or [host]


def age_of(record):
    dates = sorted(d[:10] for d in (record.get("modified_at"), record.get("published_at")) if d)
    return dates[-1] if dates else ""


def build(records, only, path):
    shutil.rmtree(path, ignore_errors=True)
    db = xapian.WritableDatabase(path, xapian.DB_CREATE_OR_OVERWRITE)
    generator = xapian.TermGenerator()
    generator.set_stemmer(xapian.Stem("german"))
    generator.set_stemming_strategy(xapian.TermGenerator.STEM_SOME)  # unstemmed and Z-prefixed stems
    documents = 0
    with open(records, encoding="utf-8") as lines:
        for line in lines:
            if not line.strip():
                continue
            record = json.loads(line)
            url = record["url"]
            if only is not None and url not in only:
                continue
            document = xapian.Document()
            generator.set_document(document)
            # Without positions: every query is an AND of words (no phrases), and positions would
            # double the build time and the index on a shared machine.
            generator.index_text_without_positions(record.get("title") or "", TITLE_WEIGHT)
            generator.index_text_without_positions(record.get("text") or "")
            document.add_boolean_term("XT" + record.get("document_type", ""))
            for suffix in host_suffixes((urlsplit(url).hostname or "").lower()):
                document.add_boolean_term("XH" + suffix)
            topic = (record.get("topic") or "").strip().lower()
            if topic:
                document.add_boolean_term("XP" + topic)
            document.add_value(AGE_SLOT, age_of(record))
            document.set_data(url)
            db.add_document(document)
            documents += 1
    db.commit()
    db.close()
    return documents


def directory_bytes(path):
    return sum(os.path.getsize(os.path.join(root, name)) for root, _, names in os.walk(path) for name in names)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", required=True)
    parser.add_argument("--queries", required=True)
    parser.add_argument("--db", required=True)
    parser.add_argument("--only")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--max-seconds", type=float, default=90)
    parser.add_argument("--reuse", action="store_true")
    args = parser.parse_args()

    stamp = os.path.join(args.db, "fundus-bench.json")
    records_stat = os.stat(args.records)
    key = {"records": os.path.realpath(args.records), "size": records_stat.st_size, "mtime": int(records_stat.st_mtime)}
    reused = False
    if args.reuse and os.path.exists(stamp):
        with open(stamp) as f:
            kept = json.load(f)
        reused = kept.get("key") == key
    if reused:
        documents, build_seconds = kept["documents"], kept["buildSeconds"]
    else:
        only = None
        if args.only:
            with open(args.only, encoding="utf-8") as f:
                only = set(line.strip() for line in f if line.strip())
        started = time.perf_counter()
        documents = build(args.records, only, args.db)
        build_seconds = time.perf_counter() - started
        with open(stamp, "w") as f:
            json.dump({"key": key, "documents": documents, "buildSeconds": build_seconds}, f)

    db = xapian.Database(args.db)
    enquire = xapian.Enquire(db)
    enquire.set_weighting_scheme(xapian.BM25Weight(1.2, 0, 1, 0.75, 0.5))
    query_parser = xapian.QueryParser()
    query_parser.set_stemmer(xapian.Stem("german"))
    query_parser.set_stemming_strategy(xapian.QueryParser.STEM_ALL_Z)
    query_parser.set_default_op(xapian.Query.OP_AND)
    query_parser.set_database(db)

    with open(args.queries, encoding="utf-8") as f:
        queries = json.load(f)

    def run(q):
        """Parses, filters and ranks one query; returns the page's URLs and the estimated matches."""
        query = query_parser.parse_query(q["q"], 0)
        filters = []
        if q.get("documentTypes"):
            filters.append(xapian.Query(xapian.Query.OP_OR, ["XT" + t for t in q["documentTypes"]]))
        if q.get("host"):
            filters.append(xapian.Query("XH" + q["host"].lower()))
        if q.get("topic"):
            filters.append(xapian.Query("XP" + q["topic"].strip().lower()))
        if q.get("minAgeDate"):
            filters.append(xapian.Query(xapian.Query.OP_VALUE_GE, AGE_SLOT, q["minAgeDate"]))
        if filters:
            query = xapian.Query(xapian.Query.OP_FILTER, query, xapian.Query(xapian.Query.OP_AND, filters))
        enquire.set_query(query)
        mset = enquire.get_mset(q["offset"], q["limit"])
        return [m.document.get_data().decode("utf-8") for m in mset], mset.get_matches_estimated()

    top, matched = [], []
    for q in queries:  # warm-up pass: also the answers compared with ours
        urls, estimated = run(q)
        top.append(urls[:10])
        matched.append(estimated)
    timings = [[] for _ in queries]
    deadline = time.perf_counter() + args.max_seconds
    for round_number in range(max(1, args.rounds)):
        if round_number > 0 and time.perf_counter() > deadline:
            break
        for i, q in enumerate(queries):
            started = time.perf_counter()
            run(q)
            timings[i].append((time.perf_counter() - started) * 1000)

    json.dump(
        {
            "version": xapian.version_string(),
            "documents": documents,
            "buildSeconds": build_seconds,
            "reused": reused,
            "indexBytes": directory_bytes(args.db),
            "peakRssBytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
            "timings": timings,
            "top": top,
            "matched": matched,
        },
        sys.stdout,
    )


if __name__ == "__main__":
    main()
