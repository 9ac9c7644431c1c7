import { describe, expect, it } from 'vitest';
import { ALLOW_ALL, matchesPattern, parseRobotsTxt, robotsFromResponse } from '../../services/ingest/sources/robots.ts';
import { parseMetaRobots, parseXRobotsTag } from '../../services/ingest/sources/robots-tags.ts';

describe('parseRobotsTxt (RFC 9309)', () => {
  it('uses the group naming the crawler, case-insensitively and ignoring a version, instead of "*"', () => {
    const robots = parseRobotsTxt('User-agent: *\nDisallow: /\n\nUser-agent: fundusbot/2.0\nDisallow: /intern\n', 'FundusBot');
    expect(robots.isAllowed('/seite')).toBe(true);
    expect(robots.isAllowed('/intern/a')).toBe(false);
  });

  it('falls back to "*" and allows everything without a matching group', () => {
    expect(parseRobotsTxt('User-agent: *\nDisallow: /x\n', 'FundusBot').isAllowed('/x/y')).toBe(false);
    expect(parseRobotsTxt('User-agent: otherbot\nDisallow: /\n', 'FundusBot').isAllowed('/x')).toBe(true);
  });

  it('merges every group that names the crawler and lets consecutive user-agent lines share a group', () => {
    const robots = parseRobotsTxt('User-agent: a\nUser-agent: FundusBot\nDisallow: /one\n\nUser-agent: FundusBot\nDisallow: /two\n', 'FundusBot');
    expect(robots.isAllowed('/one')).toBe(false);
    expect(robots.isAllowed('/two')).toBe(false);
    expect(robots.isAllowed('/three')).toBe(true);
  });

  it('lets the longest match win, Allow on a tie', () => {
    const robots = parseRobotsTxt('User-agent: *\nDisallow: /docs/\nAllow: /docs/public/\nDisallow: /docs/public/draft\nAllow: /tie\nDisallow: /tie\n', 'x');
    expect(robots.isAllowed('/docs/a')).toBe(false);
    expect(robots.isAllowed('/docs/public/a')).toBe(true);
    expect(robots.isAllowed('/docs/public/draft-1')).toBe(false);
    expect(robots.isAllowed('/tie')).toBe(true);
  });

  it('understands "*" and "$"', () => {
    const robots = parseRobotsTxt('User-agent: *\nDisallow: /*.pdf$\nDisallow: /*?session=\nDisallow: /exact$\n', 'x');
    expect(robots.isAllowed('/a/b.pdf')).toBe(false);
    expect(robots.isAllowed('/a/b.pdf?x=1')).toBe(true);
    expect(robots.isAllowed('/list?session=1')).toBe(false);
    expect(robots.isAllowed('/exact')).toBe(false);
    expect(robots.isAllowed('/exactly')).toBe(true);
  });

  it('ignores an empty Disallow, comments and rules before any user-agent line, and always allows /robots.txt', () => {
    const robots = parseRobotsTxt('Disallow: /early\nUser-agent: * # alle\nDisallow:\nDisallow: / # alles\n', 'x');
    expect(robots.isAllowed('/early')).toBe(false); // from "Disallow: /"
    expect(robots.isAllowed('/robots.txt')).toBe(true);
    expect(parseRobotsTxt('Disallow: /early\nUser-agent: *\nDisallow:\n', 'x').isAllowed('/early')).toBe(true);
  });

  it('compares percent-encoded and non-ASCII paths in one form', () => {
    const robots = parseRobotsTxt('User-agent: *\nDisallow: /straße\nDisallow: /%7ehome\n', 'x');
    expect(robots.isAllowed('/stra%C3%9Fe/1')).toBe(false);
    expect(robots.isAllowed('/~home')).toBe(false);
  });

  it('reads Crawl-delay of the matching group and every Sitemap line', () => {
    const robots = parseRobotsTxt('Sitemap: https://example.org/a.xml\nUser-agent: *\nCrawl-delay: 2.5\nUser-agent: other\nCrawl-delay: 9\nSitemap: https://example.org/b.xml\n', 'x');
    expect(robots.crawlDelayMs).toBe(2500);
    expect(robots.sitemaps).toEqual(['https://example.org/a.xml', 'https://example.org/b.xml']);
  });

  it('maps the response status: 2xx parsed, 4xx allow all, 429 and 5xx disallow all', () => {
    expect(robotsFromResponse(404, '', 'x')).toBe(ALLOW_ALL);
    expect(robotsFromResponse(403, '', 'x')).toBe(ALLOW_ALL);
    for (const status of [429, 500, 503]) {
      const rules = robotsFromResponse(status, '', 'x');
      expect(rules.isAllowed('/a')).toBe(false);
      expect(rules.isAllowed('/robots.txt')).toBe(true);
      expect(rules.unavailable).toBe(`robots.txt answered http status ${status}`);
    }
    const parsed = robotsFromResponse(200, 'User-agent: *\nDisallow: /\n', 'x');
    expect(parsed.isAllowed('/a')).toBe(false);
    expect(parsed.unavailable).toBeUndefined();
  });

  it('matches patterns in linear time', () => {
    expect(matchesPattern('/a*a*a*a*a*a*a*a*b', `/${'a'.repeat(5000)}`)).toBe(false);
    expect(matchesPattern('/*/x$', '/a/b/x')).toBe(true);
  });
});

describe('robots directives', () => {
  it('reads X-Robots-Tag for all robots or for this crawler only', () => {
    expect(parseXRobotsTag('noindex', 'FundusBot')).toEqual({ noindex: true, nofollow: false });
    expect(parseXRobotsTag('googlebot: noindex, nofollow', 'FundusBot')).toEqual({ noindex: false, nofollow: false });
    expect(parseXRobotsTag('fundusbot: none', 'FundusBot')).toEqual({ noindex: true, nofollow: true });
    expect(parseXRobotsTag('unavailable_after: 25 Jun 2030 15:00:00 PST, nofollow', 'FundusBot')).toEqual({ noindex: false, nofollow: true });
    expect(parseXRobotsTag(undefined, 'FundusBot')).toEqual({ noindex: false, nofollow: false });
  });

  it('reads a robots meta tag', () => {
    expect(parseMetaRobots('NOINDEX, follow')).toEqual({ noindex: true, nofollow: false });
    expect(parseMetaRobots('none')).toEqual({ noindex: true, nofollow: true });
  });
});
