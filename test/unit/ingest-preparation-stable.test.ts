import { describe, expect, it } from 'vitest';
import { fingerprintOf, shingleSet } from '../../services/core/text.ts';
import { scoreTopicsOfBases } from '../../services/ingest/topics/keyword-classifier.ts';

// Fingerprints are stored with every record and compared with those of earlier runs, and topics are
// stored too: a faster implementation must give the very same values. The expected values were
// computed by the implementation before the rewrite (words cut out by a regular expression, the
// base stream split into strings).

describe('stored values of a record preparation stay the same', () => {
  it('fingerprints and shingles of German text and of mixed scripts, astral letters, marks and lone surrogates', () => {
    const plain =
      'Die Gemeinde veröffentlicht den Haushaltsplan für das kommende Jahr. '.repeat(3) +
      'Der Gemeinderat berät am Dienstag über Straßen, Schulen und Kitas; Bürgerinnen und Bürger können Fragen stellen.';
    const mixed = 'İstanbul und Straße ẞ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 😀 e\u0301t\u00e9 \ud800 lone \udc00x 𝟘𝟙 ٣٤ 漢字かな ǅemal ΣΑΣ '.repeat(4) + 'a-b_c d.e 2024-01-05 x²y';
    expect(fingerprintOf(plain)).toBe('c54c96735a6d560d');
    expect([...shingleSet(plain).slice(0, 4)]).toEqual([116147639, 134024270, 151689220, 331442287]);
    expect(fingerprintOf(mixed)).toBe('c40d77e23f5b52da');
    expect([...shingleSet(mixed).slice(0, 4)]).toEqual([143230799, 192740026, 308210243, 325762550]);
    expect(fingerprintOf('zu kurz für einen Fingerabdruck')).toBeNull();
  });

  it('topic scores: title weight, empty words between double spaces, and the 40,000-character cut of the body', () => {
    expect(scoreTopicsOfBases('gesetz  recht ', ' gesetz  bahn')).toEqual({ topic: 'Recht', scores: { Recht: 7, Verkehr: 1 } });
    // A keyword that ends at the cut counts; one the cut splits ("geset|z") does not.
    expect(scoreTopicsOfBases('', 'xyz '.repeat(9998) + 'a gesetz gesetz')).toEqual({ topic: null, scores: { Recht: 1 } });
    expect(scoreTopicsOfBases('', 'xyz '.repeat(9998) + 'ab gesetz gesetz')).toEqual({ topic: null, scores: {} });
  });
});
