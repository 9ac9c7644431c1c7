import { describe, expect, it } from 'vitest';
import type { StoredDocument } from '../../services/core/document.ts';
import { facetsOf, hostToken, topicToken } from '../../services/index/sqlite/fts-query.ts';

// facetsOf keeps the tokens of recent hosts and topics: a hit must give what a fresh computation gives.
const doc = (host: string, topic: string | null, isNews = false) =>
  ({ host, topic, isNews, documentType: 'html' }) as unknown as StoredDocument;

describe('facet tokens of a document', () => {
  it('names the type, every host suffix down to the registrable domain, the topic and news', () => {
    const expected = `a_all t_html ${hostToken('www.bund.de')} ${hostToken('bund.de')} ${topicToken('Recht')} n_news`;
    expect(facetsOf(doc('www.bund.de', 'Recht', true))).toBe(expected);
    // Again, from the remembered tokens; a topic is folded as before ('recht' = 'Recht ').
    expect(facetsOf(doc('www.bund.de', 'Recht', true))).toBe(expected);
    expect(facetsOf(doc('www.bund.de', ' recht ', true))).toBe(expected);
  });

  it('keeps hosts and topics apart, and many of them', () => {
    for (let i = 0; i < 60_000; i++) {
      const host = `s${i % 70_000}.example.org`;
      const facets = facetsOf(doc(host, i % 3 ? `Thema ${i % 5}` : null));
      expect(facets.split(' ')).toEqual(
        ['a_all', 't_html', hostToken(host), hostToken('example.org'), ...(i % 3 ? [topicToken(`Thema ${i % 5}`)] : [])],
      );
    }
    expect(facetsOf(doc('localhost', null))).toBe(`a_all t_html ${hostToken('localhost')}`);
    // A topic spelt like a host is still a topic.
    expect(facetsOf(doc('example.org', 'example.org'))).toBe(`a_all t_html ${hostToken('example.org')} ${topicToken('example.org')}`);
  });
});
