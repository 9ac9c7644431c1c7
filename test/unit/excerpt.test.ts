import { describe, expect, it } from 'vitest';
import { htmlToText } from '../../services/ingest/fediverse/html-text.ts';
import { EXCERPT_MAX_CHARS, excerptRange, makeExcerpt } from '../../services/search-web/excerpt.ts';

// Social excerpts (spec 4.3 rule 3): at most 180 characters plus an ellipsis, a short post at most
// half its length, cut at word boundaries and never inside a grapheme, HTML stripped.

const graphemes = new Intl.Segmenter('de', { granularity: 'grapheme' });
const countGraphemes = (s: string) => [...graphemes.segment(s)].length;
const countPoints = (s: string) => [...s].length;
const graphemeBoundaries = (s: string) => new Set([...[...graphemes.segment(s)].map((g) => g.index), s.length]);

/** The excerpt without its ellipses, and where it sits in the (whitespace-normalised) text. */
function body(excerpt: string): string {
  return excerpt.replace(/^…/, '').replace(/…$/, '');
}

/** Every rule, in every way of counting characters. */
function expectExcerptRules(text: string, excerpt: string, focus?: number) {
  const clean = text.replace(/\s+/gu, ' ').trim();
  for (const measure of [(s: string) => s.length, countPoints, countGraphemes]) {
    expect(measure(excerpt)).toBeLessThanOrEqual(EXCERPT_MAX_CHARS + 1);
    expect(measure(excerpt)).toBeLessThanOrEqual(Math.floor(measure(clean) / 2));
    expect(measure(body(excerpt))).toBeLessThanOrEqual(EXCERPT_MAX_CHARS);
  }
  const range = excerptRange(text, { focus });
  if (!excerpt) return expect(range).toBeNull();
  expect(range!.text).toBe(clean);
  expect(excerpt, 'the excerpt is a piece of the post with its ellipses').toBe(
    `${range!.start > 0 ? '…' : ''}${clean.slice(range!.start, range!.end)}${range!.end < clean.length ? '…' : ''}`,
  );
  const boundaries = graphemeBoundaries(clean);
  expect(boundaries.has(range!.start) && boundaries.has(range!.end), 'never inside a grapheme').toBe(true);
}

describe('makeExcerpt', () => {
  it('cuts a long post to at most 180 characters plus an ellipsis, at a word boundary', () => {
    const text = 'Heute war ich im Stadtpark und habe die ersten Krokusse des Jahres gesehen, gelb und violett. '.repeat(8);
    const excerpt = makeExcerpt(text);
    expectExcerptRules(text, excerpt);
    expect(excerpt.endsWith('…')).toBe(true);
    expect(body(excerpt).length).toBeGreaterThan(150);
    const next = text[body(excerpt).length];
    expect(next, 'the cut falls before a space or punctuation, not inside a word').toMatch(/[\s,.]/);
  });

  it('outputs a short post to at most one half of its length, ellipsis included', () => {
    for (const text of ['Guten Morgen zusammen, heute scheint die Sonne!', 'Kurzer Beitrag.', 'Hallo', 'Ja']) {
      const excerpt = makeExcerpt(text);
      expectExcerptRules(text, excerpt);
      expect(excerpt.length).toBeLessThanOrEqual(Math.floor(text.length / 2));
    }
    expect(makeExcerpt('Guten Morgen zusammen, heute scheint die Sonne!')).toBe('Guten Morgen zusammen…');
  });

  it('keeps emoji-heavy posts within the limits however characters are counted, never splitting an emoji', () => {
    const family = '👨‍👩‍👧‍👦';
    const texts = [
      `${family} `.repeat(60) + 'Familienausflug',
      '🎉 Party 🎉 '.repeat(40),
      `Wir feiern 🇩🇪🇩🇪🇩🇪 und ${family}${family} mit e\u0301 und a\u0308 `.repeat(12),
      '🙂'.repeat(300),
      `${family}${family}${family}`,
    ];
    for (const text of texts) expectExcerptRules(text, makeExcerpt(text));
    expect(makeExcerpt('🙂'.repeat(300))).toMatch(/^(🙂)+…$/u);
  });

  it('cuts a single overlong word between graphemes', () => {
    const url = `https://example.org/${'abc'.repeat(200)}`;
    const excerpt = makeExcerpt(url);
    expectExcerptRules(url, excerpt);
    expect(body(excerpt).length).toBeGreaterThan(100);
  });

  it('returns nothing for nothing, and nothing for a post too short to halve', () => {
    expect(makeExcerpt('')).toBe('');
    expect(makeExcerpt('   ')).toBe('');
    expect(makeExcerpt('👍')).toBe('');
  });

  it('moves the window to a matched word that lies beyond the first 180 characters', () => {
    const text = `${'Ein ruhiger Tag am Fluss mit vielen Enten und einem Reiher. '.repeat(6)}Am Abend kam der Zauberer vorbei und blieb zum Essen. ${'Danach regnete es lange. '.repeat(4)}`;
    const focus = text.indexOf('Zauberer');
    const excerpt = makeExcerpt(text, { focus });
    expectExcerptRules(text, excerpt, focus);
    expect(excerpt.startsWith('…')).toBe(true);
    expect(excerpt).toContain('Zauberer');
  });

  it('works on text from HTML posts, with tags and entities gone', () => {
    const html =
      '<p>Neuer Radweg an der <a href="https://example.org/x"><span class="invisible">https://</span><span>example.org/x</span></a> &amp; ' +
      'mehr Bänke am Ufer.</p><p>Danke an alle, die mitgeholfen haben! <a href="https://social.example/tags/rad" class="mention hashtag" rel="tag">#<span>Rad</span></a></p>';
    const text = htmlToText(html);
    expect(text).toBe('Neuer Radweg an der https://example.org/x & mehr Bänke am Ufer.\n\nDanke an alle, die mitgeholfen haben! #Rad');
    const excerpt = makeExcerpt(text);
    expectExcerptRules(text, excerpt);
    expect(excerpt).not.toMatch(/[<>]|&amp;/);
  });

  it('holds its rules on many generated posts', () => {
    const words = ['Haus', 'Straßenbahn', 'Ökologie', '🚲', '👩🏽‍💻', '🇦🇹', 'e\u0301te\u0301', 'https://beispiel.de/weg', '#Klima', 'ja', '—', 'Übermorgen.', 'a', '😀😀😀'];
    let seed = 42;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let n = 0; n < 300; n++) {
      const length = Math.floor(random() * 120);
      const text = Array.from({ length }, () => words[Math.floor(random() * words.length)]).join(random() < 0.2 ? '' : ' ');
      const focus = random() < 0.5 && text ? Math.floor(random() * text.length) : undefined;
      expectExcerptRules(text, makeExcerpt(text, { focus }), focus);
    }
  });
});
