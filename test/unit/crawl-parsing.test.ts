import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeHtml, extractLinks, resolveUrl } from '../../services/ingest/sources/links.ts';
import { parseSitemap, SitemapError } from '../../services/ingest/sources/sitemap.ts';
import { isDocumentResponse } from '../../services/ingest/sources/document-filter.ts';
import { hostMatcher } from '../../services/ingest/sources/allowed-hosts.ts';

describe('extractLinks', () => {
  const page = 'https://example.org/dir/page.html';

  it('resolves relative links against the page or its <base>, drops fragments and duplicates', () => {
    const html = `<a href="a.html">a</a><A HREF='/b?x=1&amp;y=2#teil'>b</A><a href=c>c</a><a href="a.html#x">again</a>`;
    expect(extractLinks(html, page, 'FundusBot').links).toEqual(['https://example.org/dir/a.html', 'https://example.org/b?x=1&y=2', 'https://example.org/dir/c']);
    const based = `<head><base href="https://example.org/other/"></head><a href="x">x</a>`;
    expect(extractLinks(based, page, 'FundusBot').links).toEqual(['https://example.org/other/x']);
  });

  it('leaves out nofollow links, other schemes, comments and scripts', () => {
    const html = `<a rel="external nofollow" href="/nf">n</a><a href="mailto:a@b.de">m</a><a href="javascript:x()">j</a>
      <a href="tel:+49">t</a><!-- <a href="/c">c</a> --><script>document.write('<a href="/s">')</script><a href="/ok">ok</a>
      <style>a[href="/st"]{}</style><script src="x.js">`;
    expect(extractLinks(html, page, 'FundusBot').links).toEqual(['https://example.org/ok']);
  });

  it('follows nothing when a robots meta tag for all or for this crawler says nofollow', () => {
    expect(extractLinks('<meta name="robots" content="noindex,nofollow"><a href="/x">x</a>', page, 'FundusBot')).toEqual({ links: [], nofollow: true });
    expect(extractLinks('<meta name="FundusBot" content="none"><a href="/x">x</a>', page, 'FundusBot').nofollow).toBe(true);
    expect(extractLinks('<meta name="googlebot" content="nofollow"><a href="/x">x</a>', page, 'FundusBot').links).toEqual(['https://example.org/x']);
  });

  it('normalises crawl URLs: http(s) only, no fragment, no empty query, lower-case host', () => {
    expect(resolveUrl('HTTP://Example.ORG:80/a?#f')).toBe('http://example.org/a');
    expect(resolveUrl('ftp://example.org/')).toBeNull();
    expect(resolveUrl('not a url')).toBeNull();
  });

  it('decodes a page by its declared charset', () => {
    const latin1 = Buffer.from('<p>Straße</p>', 'latin1');
    expect(decodeHtml(latin1, 'text/html; charset=ISO-8859-1')).toBe('<p>Straße</p>');
    expect(decodeHtml(Buffer.concat([Buffer.from('<meta charset="windows-1252">'), latin1]), 'text/html')).toContain('Straße');
    expect(decodeHtml(Buffer.from('<p>Straße</p>'), undefined)).toBe('<p>Straße</p>');
  });
});

describe('parseSitemap', () => {
  const urlset = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url><loc>https://example.org/a?x=1&amp;y=2</loc><lastmod>2024-01-01</lastmod>
    <image:image><image:loc>https://example.org/bild.jpg</image:loc></image:image></url>
  <url><loc><![CDATA[https://example.org/b]]></loc></url>
</urlset>`;

  it('reads a urlset, plain and gzip-compressed, without extension locations', () => {
    const expected = { kind: 'urlset', urls: ['https://example.org/a?x=1&y=2', 'https://example.org/b'] };
    expect(parseSitemap(Buffer.from(urlset))).toEqual(expected);
    expect(parseSitemap(zlib.gzipSync(urlset))).toEqual(expected);
  });

  it('reads a sitemap index', () => {
    const index = '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>https://example.org/s1.xml.gz</loc></sitemap></sitemapindex>';
    expect(parseSitemap(Buffer.from(index))).toEqual({ kind: 'index', sitemaps: ['https://example.org/s1.xml.gz'] });
  });

  it('reads a text sitemap and rejects other XML and broken gzip', () => {
    expect(parseSitemap(Buffer.from('https://example.org/a\n\nnot a url\nhttps://example.org/b\n'))).toEqual({ kind: 'urlset', urls: ['https://example.org/a', 'https://example.org/b'] });
    expect(() => parseSitemap(Buffer.from('<rss><channel></channel></rss>'))).toThrow(SitemapError);
    expect(() => parseSitemap(zlib.gzipSync(urlset).subarray(0, 40))).toThrow(SitemapError);
  });
});

describe('isDocumentResponse', () => {
  it('accepts the five document types, and octet-stream only with a document file name', () => {
    expect(isDocumentResponse('text/html; charset=utf-8', 'https://e.org/')).toBe(true);
    expect(isDocumentResponse('application/vnd.oasis.opendocument.text', 'https://e.org/x')).toBe(true);
    expect(isDocumentResponse('application/octet-stream', 'https://e.org/a.docx')).toBe(true);
    expect(isDocumentResponse('application/octet-stream', 'https://e.org/a.zip')).toBe(false);
    expect(isDocumentResponse('image/png', 'https://e.org/a.pdf')).toBe(false);
  });
});

describe('hostMatcher', () => {
  it('matches host and port (80 and 443 when none is given), ignoring case, and subdomains for "*." entries', () => {
    const allowed = hostMatcher(['Example.COM:8080', '*.example.org', 'https://docs.example.net/x', 'intra.example:443']);
    const yes = ['http://example.com:8080/', 'https://a.example.org/', 'http://a.b.example.org/', 'https://docs.example.net/', 'http://docs.example.net:80/', 'https://intra.example/'];
    expect(yes.map(allowed)).toEqual(yes.map(() => true));
    const no = ['http://example.com/', 'http://example.com:8081/', 'http://www.example.com:8080/', 'http://example.org/', 'http://a.example.org:8080/', 'http://badexample.org/', 'http://docs.example.net:6379/', 'not a url'];
    expect(no.map(allowed)).toEqual(no.map(() => false));
  });
});
