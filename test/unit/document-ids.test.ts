import { createHash } from 'node:crypto';
import { v5 as uuidv5 } from 'uuid';
import { describe, expect, it } from 'vitest';
import { DOCUMENT_ID_NAMESPACE, documentIdForUrl, normalizeUrl, sourceIdFor } from '../../services/core/urls.ts';

// Document and source ids are stored and must never change: the one-call uuid v5 gives what the
// uuid package gives, and the source id what the hash of the domain gave.

describe('document and source ids', () => {
  it('are the uuid package v5 of the normalised URL and the sha-256 of the domain', () => {
    const urls = [
      'https://www.example.org/', 'https://Example.ORG:443/a/b?utm_source=x&b=2&a=1#frag', 'http://xn--mnchen-3ya.de/pfad',
      'https://münchen.de/ä?ö=ü', 'file:///srv/docs/bericht%20neu.html', 'https://example.org/' + 'x'.repeat(3000),
      ...Array.from({ length: 500 }, (_, i) => `https://site${i % 37}.example/seite/${i}.html?q=${i * 7919}`),
    ];
    for (const url of urls) {
      // The normalised form is ASCII whatever the URL held (WHATWG serialisation: punycode, %-escapes).
      expect(normalizeUrl(url)).toMatch(/^[\x00-\x7f]+$/);
      expect(documentIdForUrl(url)).toBe(`urn:uuid:${uuidv5(normalizeUrl(url), DOCUMENT_ID_NAMESPACE)}`);
    }
    for (const domain of ['example.org', 'münchen.de', 'localhost', '']) {
      expect(sourceIdFor(domain)).toBe(`src-${createHash('sha256').update(domain).digest('hex').slice(0, 16)}`);
    }
  });
});
