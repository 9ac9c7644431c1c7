#!/usr/bin/python3
"""Noun form pairs for scripts/bench/word-form-pairs.ts: for each noun of Fundus's lexicon, the
forms made by one ending (-s, -es, -e, -en, -n, ...) or a loan-word plural (-um/-en, -us/-i,
-a/-en, -ma/-mata, -on/-a, -ex/-izes, -ix/-izen) that hunspell de_DE accepts as words.
Output: TSV lines "kind<TAB>singular<TAB>form". Debian: python3-hunspell, hunspell-de-de.
hunspell accepts some non-words (Augenglaser), so a pair is a candidate, not a truth."""
import gzip
import sys

import hunspell

ENDINGS = ["s", "es", "e", "en", "n", "se", "ses", "sen", "nen"]
LOANS = [("um", "en"), ("um", "a"), ("us", "en"), ("us", "i"), ("a", "en"), ("a", "ata"), ("ma", "men"),
         ("on", "a"), ("ex", "izes"), ("ix", "izen"), ("o", "en"), ("o", "i")]


def main():
    lexicon, out = sys.argv[1], sys.stdout
    speller = hunspell.HunSpell("/usr/share/hunspell/de_DE.dic", "/usr/share/hunspell/de_DE.aff")

    def ok(word):
        try:
            return speller.spell(word)
        except UnicodeEncodeError:
            return False

    for word in gzip.open(lexicon, "rt", encoding="utf-8"):
        word = word.strip()
        if len(word) < 4 or not word.isalpha():
            continue
        noun = word[0].upper() + word[1:]
        if not ok(noun):
            continue
        forms = [(ending, noun + ending) for ending in ENDINGS]
        forms += [(f"{s}>{p}", noun[: -len(s)] + p) for s, p in LOANS if noun.endswith(s)]
        for kind, form in forms:
            if ok(form):
                out.write(f"{kind}\t{noun}\t{form}\n")


main()
