#!/usr/bin/python3
"""Peers and compound-part truth for scripts/bench/quality.ts (run by it; Debian's python3).

  quality_peers.py compounds DOCS.jsonl TRUTH.jsonl > queries.jsonl
      Compound-part queries built from the documents' own text, validated with
      Debian's hunspell de_DE (python3-hunspell): a compound word of a document
      whose split into modifier + head is unambiguous and whose parts are real
      nouns that never stand alone in that document; paired with a distinctive
      word of the same document. Nothing here uses Fundus's lexicon or splitter.

  quality_peers.py peers DOCS.jsonl QUERIES.jsonl > results.jsonl
      The same documents and queries in SQLite FTS5 (unicode61; unicode61 over
      Snowball-stemmed text, python3-snowballstemmer) and Xapian 1.4 with its
      German stemmer (python3-xapian): the top 50 document ids per query.

DOCS lines: {"id", "title", "text", "primary"}; QUERIES lines: {"qid", "q"}.
"""
import json
import re
import sqlite3
import sys
from collections import Counter

WORD = re.compile(r"[^\W\d_]+")
TOP = 50


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


# ---------------------------------------------------------------- compound truth

LINKS = ("", "s", "es", "n", "en", "e", "er")
# Derivational suffixes that are also nouns (Schaft, Tum): Rechtsträger|schaft is no compound.
SUFFIXES = ("schaft", "tum", "heit", "keit", "ling", "nis")
INFLECTIONS = ("", "e", "en", "n", "s", "es", "er", "ern", "ns")


def compound_queries(docs, truth):
    import hunspell  # python3-hunspell

    speller = hunspell.HunSpell("/usr/share/hunspell/de_DE.dic", "/usr/share/hunspell/de_DE.aff")
    cache = {}

    def is_noun(word):
        # A noun of the dictionary itself (hunspell's stem() finds its entry; a word that is only
        # accepted by compounding, "Vorei" = Vor+Ei, has none), spelled capitalised only: "Wahl"
        # yes, "wahl" no (no verbs, adjectives or capitalised sentence starts).
        if word not in cache:
            stems = speller.stem(word) if len(word) >= 4 else []
            cache[word] = any(stem[:1].isupper() for stem in stems) or (bool(stems) and not speller.spell(word.lower()))
        return cache[word]

    def is_compound_noun(word):
        # A modifier may be a compound itself (Bildschirm|ausgabe); counted here only so that a
        # word with two readings (Bildschirm|ausgabe, Bildschirmaue|gabe) is seen as ambiguous.
        return len(word) >= 6 and speller.spell(word) and not speller.spell(word.lower())

    def modifier_lemmas(prefix):
        out = []
        for link in LINKS:
            if link and not prefix.endswith(link):
                continue
            base = prefix[: len(prefix) - len(link)] if link else prefix
            if len(base) < 4:  # Ent|wicklung, Zus|ammenhang: a prefix, not a modifier
                continue
            # Schul|buch, Hilf|s|mittel: a modifier that drops its final -e (not after other links).
            for candidate in (base, base + "e") if link in ("", "s") else (base,):
                if is_noun(candidate.capitalize()):
                    out.append((candidate.capitalize(), True))
                elif is_compound_noun(candidate.capitalize()):
                    out.append((candidate.capitalize(), False))
        return out

    def splits(word):
        """All readings modifier + head (the head as written), each with whether the modifier is a dictionary noun."""
        found = []
        for i in range(4, len(word) - 3):
            head = word[i:].capitalize()
            if len(head) < 5 or not is_noun(head) or head.lower().startswith(SUFFIXES):
                continue
            for modifier, sure in modifier_lemmas(word[:i]):
                found.append((modifier, head, sure))
        return found

    df = Counter()
    words_of = {}
    for doc in docs:
        words = WORD.findall(doc["title"] + " " + doc["text"])
        words_of[doc["id"]] = words
        df.update({w.lower() for w in words})

    queries = []
    for doc in docs:
        entry = truth.get(doc["id"])
        if entry is None or not doc["primary"]:
            continue
        words = words_of[doc["id"]]
        lower = {w.lower() for w in words}
        counts = Counter(w for w in words if len(w) >= 9 and w[0].isupper() and w[1:].islower())

        def stands_alone(part):
            p = part.lower()
            return any(p + ending in lower for ending in INFLECTIONS)

        def partner(part):
            p = part.lower()
            for term in entry["key_terms"]:
                if p not in term.lower() and " " not in term:
                    return term
            rare = sorted((w for w in set(words) if len(w) >= 6 and p not in w.lower()), key=lambda w: (df[w.lower()], -len(w), w))
            return rare[0] if rare else None

        picked = {}
        for word, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            # A noun (not a capitalised verb or adjective: Verbessern, Verb|essern) that hunspell accepts.
            if not speller.spell(word) or speller.spell(word.lower()):
                continue
            readings = splits(word)
            # Only unambiguous words: one reading (Arbeitsamt could be Arbeit|samt or Arbeits|amt).
            if len({(m.lower(), h.lower()) for m, h, _ in readings}) != 1 or not readings[0][2]:
                continue
            modifier, head, _ = readings[0]
            # A dictionary word must split the same way in its base form: Datensätze → Datensatz
            # (Daten|satz), but Tabulatoren → Tabulator (Tabula|tor, no noun of four letters),
            # Richterinnen → Richterin (Richte|rin).
            at = len(word) - len(head)
            lemmas = [stem.decode() for stem in speller.stem(word)]
            if lemmas and not any(lemma[:at].lower() == word[:at].lower() and is_noun(lemma[at:].capitalize()) for lemma in lemmas if lemma[:1].isupper()):
                continue
            # A dictionary word with a short first part is mostly lexicalised: Para|meter, Reis|ende.
            if len(modifier) < 5 and speller.stem(word):
                continue
            for role, part in (("head", head), ("modifier", modifier)):
                if role in picked or stands_alone(part):
                    continue
                mate = partner(part)
                if mate is None:
                    continue
                picked[role] = {"role": role, "part": part, "compound": word, "partner": mate}
            if len(picked) == 2:
                break
        for role, case in sorted(picked.items()):
            queries.append({"qid": f"{role}:{doc['id']}", "kind": role, "doc": doc["id"], "q": f"{case['partner']} {case['part']}", **case})
    return queries


# ---------------------------------------------------------------- peers


def fts5_results(docs, queries, stem):
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE d USING fts5(id UNINDEXED, title, body, tokenize = 'unicode61')")
    prepare = (lambda text: " ".join(stem(w.lower()) for w in WORD.findall(text))) if stem else (lambda text: text)
    db.executemany("INSERT INTO d VALUES (?, ?, ?)", ((doc["id"], prepare(doc["title"]), prepare(doc["text"])) for doc in docs))
    out = {}
    for query in queries:
        words = [w.lower() for w in WORD.findall(query["q"])]
        if stem:
            words = [stem(w) for w in words]
        if not words:
            out[query["qid"]] = []
            continue
        match = " AND ".join('"' + w.replace('"', '""') + '"' for w in words)
        rows = db.execute("SELECT id FROM d WHERE d MATCH ? ORDER BY rank LIMIT ?", (match, TOP)).fetchall()
        out[query["qid"]] = [row[0] for row in rows]
    return out


def xapian_results(docs, queries):
    import xapian  # python3-xapian

    db = xapian.WritableDatabase("", xapian.DB_BACKEND_INMEMORY)
    stemmer = xapian.Stem("german")
    generator = xapian.TermGenerator()
    generator.set_stemmer(stemmer)
    for doc in docs:
        document = xapian.Document()
        generator.set_document(document)
        generator.index_text(doc["title"])
        generator.increase_termpos()
        generator.index_text(doc["text"])
        document.set_data(doc["id"])
        db.add_document(document)
    parser = xapian.QueryParser()
    parser.set_stemmer(stemmer)
    # STEM_SOME would leave capitalised words unstemmed: in German, every noun.
    parser.set_stemming_strategy(xapian.QueryParser.STEM_ALL_Z)
    parser.set_default_op(xapian.Query.OP_AND)
    parser.set_database(db)
    enquire = xapian.Enquire(db)
    out = {}
    for query in queries:
        enquire.set_query(parser.parse_query(query["q"]))
        out[query["qid"]] = [match.document.get_data().decode() for match in enquire.get_mset(0, TOP)]
    return out


def main():
    mode = sys.argv[1]
    docs = read_jsonl(sys.argv[2])
    if mode == "compounds":
        truth = {entry["id"]: entry for entry in read_jsonl(sys.argv[3])}
        for query in compound_queries(docs, truth):
            print(json.dumps(query, ensure_ascii=False))
        return
    import snowballstemmer  # python3-snowballstemmer

    queries = read_jsonl(sys.argv[3])
    german = snowballstemmer.stemmer("german")
    peers = {
        "FTS5 unicode61": fts5_results(docs, queries, None),
        "FTS5 Snowball": fts5_results(docs, queries, german.stemWord),
        "Xapian German": xapian_results(docs, queries),
    }
    print(json.dumps(peers, ensure_ascii=False))


if __name__ == "__main__":
    main()
