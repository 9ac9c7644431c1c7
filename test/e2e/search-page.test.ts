import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/chromium.ts';
import { CONTRACT_DOCS, makeDoc } from '../helpers/documents.ts';
import { mastodonStatus, realPublicGuard, sampleFediverseFiles, startTestSearchWeb, type TestSearchWeb } from '../helpers/search-web.ts';

// Code passed to page.evaluate runs in the browser, where these exist.
declare const document: any;
declare const window: any;

// The search page in a real headless Chromium (Debian's chromium via playwright-core), under its real
// Content-Security-Policy and the real public budget of 60 requests a minute: search, filter, page
// onward, switch tabs (mouse and keyboard), the 429 state, a phone-sized screen, and axe-core checks.
// Screenshots go to test-artifacts/.

const ARTIFACTS = resolve('test-artifacts');
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let web: TestSearchWeb;
let browser: Browser;
let page: Page;
const problems: string[] = [];

function watch(target: Page) {
  target.on('console', (message) => {
    if (message.type() === 'error' || /Content Security Policy/i.test(message.text())) problems.push(message.text());
  });
  target.on('pageerror', (error) => problems.push(error.message));
}

/** Waits until the search started by the last action has been answered and drawn. */
async function settle(target: Page = page) {
  await target.waitForFunction(() => document.getElementById('results-panel')?.getAttribute('aria-busy') !== 'true');
}

async function shot(name: string, target: Page = page) {
  await target.screenshot({ path: `${ARTIFACTS}/search-page-${name}.png`, fullPage: true });
}

/** axe-core in the page; serious and critical violations fail the test. Evaluated, so the CSP stays strict. */
async function expectAccessible(label: string, target: Page = page) {
  if (!(await target.evaluate(() => 'axe' in window))) await target.evaluate(AXE_SOURCE);
  const violations = await target.evaluate(async () => {
    const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v: any) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n: any) => n.target.join(' ')).slice(0, 3) }));
  });
  expect(violations.filter((v: any) => v.impact === 'serious' || v.impact === 'critical'), label).toEqual([]);
}

const texts = (selector: string) => page.locator(selector).allTextContents();

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  const protocols = Array.from({ length: 25 }, (_, i) => makeDoc({ url: `https://archiv.stadt-c.example/${i}`, title: `Protokoll ${i}`, text: `Sitzung des Rates Nummer ${i} über den Etat.`, publishedAt: `2024-0${(i % 9) + 1}-10` }));
  const hostile = makeDoc({ url: 'https://boese.example/bogen', title: '<img src=x onerror="window.__pwned=1"> Bastelbogen', text: 'Bastelbogen <script>window.__pwned=1</script> zum Ausschneiden und Falten.' });
  const news = Array.from({ length: 4 }, (_, i) => makeDoc({ url: `https://zeitung.example/artikel-${i}`, title: `Meldung ${i} aus dem Stadtrat`, text: `Neues aus dem Stadtrat, Teil ${i}.`, publishedAt: `2026-0${i + 5}-01`, isNews: true }));
  const statuses = [
    mastodonStatus({ instance: 'social.example', user: 'gerda', name: 'Gerda 🌻', content: '<p>Der Flohmarkt am Sonntag war voller schöner Dinge. Danke an alle Helferinnen und Helfer!</p>', createdAt: '2026-11-20T10:00:00.000Z', tags: ['flohmarkt'] }),
    mastodonStatus({ instance: 'other.example', user: 'ben', content: '<p>Flohmarkt-Tipp: früh kommen lohnt sich, die besten Sachen sind um neun weg.</p>', createdAt: '2026-11-21T10:00:00.000Z', spoiler: 'Schnäppchen' }),
  ];
  web = await startTestSearchWeb({
    webDocs: [...CONTRACT_DOCS.map(makeDoc), ...protocols, hostile, ...news],
    fediverseFiles: sampleFediverseFiles(),
    statuses,
    guard: realPublicGuard(),
    fediverseInstances: ['social.example', 'other.example'],
  });
  browser = await launchChromium();
  page = await (await browser.newContext({ locale: 'de-DE', viewport: { width: 1100, height: 900 } })).newPage();
  watch(page);
});

afterAll(async () => {
  await browser?.close();
  await web?.close();
});

describe('the search page', () => {
  it('loads under its CSP, in German, with landmarks, and passes axe', async () => {
    await page.goto(`${web.url}/`);
    expect(await page.getAttribute('html', 'lang')).toBe('de');
    expect(await page.textContent('#status')).toBe('Geben Sie einen Suchbegriff ein.');
    expect(await page.locator('main').count()).toBe(1);
    expect(await page.locator('[role="search"]').count()).toBe(1);
    expect(await page.getAttribute('#tab-web', 'aria-selected')).toBe('true');
    await expectAccessible('empty page');
    await shot('start');
  });

  it('searches and shows results with source, date, type, emphasised words and the external-source note', async () => {
    await page.fill('#q', 'Haus');
    await page.press('#q', 'Enter');
    await settle();
    expect(await page.textContent('#status')).toBe('3 Treffer für „Haus“.');
    expect(await page.locator('#results > li').count()).toBe(3);
    const first = page.locator('#results > li').first();
    expect(await first.locator('h3 a').getAttribute('href')).toBe('https://www.stadt-a.example/haus');
    expect(await first.locator('.source').textContent()).toBe('stadt-a.example');
    expect(await first.locator('time').textContent()).toBe('1. Oktober 2026');
    expect(await first.locator('.badge').textContent()).toBe('HTML');
    expect(await first.locator('mark').allTextContents()).toEqual(['Haus', 'Hauses']);
    expect(await first.locator('.external').textContent()).toBe('Externe Quelle');
    expect(await page.isVisible('#pager'), 'one page only: no paging controls').toBe(false);
    expect(await page.textContent('#external-note')).toContain('externen Quellen');
    expect(page.url(), 'the query lives in the fragment only').toMatch(/#q=Haus$/);
    await expectAccessible('web results');
    await shot('web-results');
  });

  it('filters by document type and source, and resets the filters', async () => {
    await page.click('#filters summary');
    await page.check('.doc-type[value="pdf"]');
    await settle();
    expect(await texts('#results h3')).toEqual(['Neue Häuser']);
    expect(await texts('#results .badge')).toEqual(['PDF']);
    expect(await page.textContent('#filter-count')).toBe('(1 aktiv)');
    await page.uncheck('.doc-type[value="pdf"]');
    await settle();
    await page.fill('#source', 'domain:stadt-b.example');
    await page.press('#source', 'Tab');
    await settle();
    expect(await texts('#results .source')).toEqual(['stadt-b.example']);
    // Enter in a filter field fires "change" and "submit"; the page asks only once (budget).
    const asked: string[] = [];
    const count = (request: import('playwright-core').Request) => request.url().includes('/api/') && asked.push(request.url());
    page.on('request', count);
    await page.fill('#source', 'stadt-a.example');
    await page.press('#source', 'Enter');
    await settle();
    page.off('request', count);
    expect(asked).toHaveLength(1);
    expect(await texts('#results .source')).toEqual(['stadt-a.example', 'stadt-a.example']);
    await shot('filtered');
    await page.click('#reset-filters');
    await settle();
    expect(await page.inputValue('#source')).toBe('');
    expect(await page.locator('#results > li').count()).toBe(3);
  });

  it('pages onward with has_more and moves focus to the results', async () => {
    await page.fill('#q', 'Protokoll');
    await page.press('#q', 'Enter');
    await settle();
    expect(await page.textContent('#status')).toBe('25 Treffer für „Protokoll“.');
    expect(await page.locator('#results > li').count()).toBe(10);
    expect(await page.isDisabled('#prev')).toBe(true);
    await page.click('#next');
    await settle();
    expect(await page.getAttribute('#results', 'start')).toBe('11');
    expect(await page.textContent('#page-info')).toBe('Seite 2');
    expect(await page.textContent('#status')).toBe('25 Treffer für „Protokoll“, Seite 2.');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('results-heading');
    await page.click('#next');
    await settle();
    expect(await page.locator('#results > li').count()).toBe(5);
    expect(await page.isDisabled('#next')).toBe(true);
    await shot('page-3');
    await page.goBack();
    await settle();
    expect(await page.textContent('#page-info')).toBe('Seite 2');
  });

  it('says clearly when nothing was found, and counts in German number format', async () => {
    await page.fill('#q', 'Quetzalcoatlus');
    await page.press('#q', 'Enter');
    await settle();
    expect(await page.textContent('#status')).toBe('Keine Treffer für „Quetzalcoatlus“ (Web).');
    expect(await page.isVisible('#empty')).toBe(true);
    expect(await page.isVisible('#pager')).toBe(false);
    await shot('empty');
    // A string, so the test runner does not rewrite the browser's import().
    const counts = await page.evaluate(
      `import('/static/render.js').then(({ formatCount }) => [formatCount(1200, 'gte'), formatCount(1200, 'eq'), formatCount(1, 'eq'), formatCount(1234567, 'gte')])`,
    );
    expect(counts).toEqual(['etwa 1.200 Treffer', '1.200 Treffer', '1 Treffer', 'etwa 1.234.567 Treffer']);
  });

  it('shows hostile titles and snippets as text, never as markup', async () => {
    await page.fill('#q', 'Bastelbogen');
    await page.press('#q', 'Enter');
    await settle();
    expect(await texts('#results h3')).toEqual(['<img src=x onerror="window.__pwned=1"> Bastelbogen']);
    expect(await page.locator('#results img, #results script').count()).toBe(0);
    expect(await page.evaluate(() => (window as any).__pwned)).toBeUndefined();
  });

  it('switches to news and, by keyboard, to the fediverse tab', async () => {
    await page.fill('#q', '');
    await page.click('#tab-news');
    await settle();
    expect(await page.getAttribute('#tab-news', 'aria-selected')).toBe('true');
    expect(await page.getAttribute('#results-panel', 'aria-labelledby')).toBe('tab-news');
    const dates = await page.locator('#results time').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('datetime')!));
    expect(dates.length).toBeGreaterThanOrEqual(6);
    expect(dates).toEqual([...dates].sort().reverse());
    expect(await page.isVisible('#topic')).toBe(true);
    await shot('news');

    await page.focus('#tab-news');
    await page.keyboard.press('ArrowRight');
    await settle();
    expect(await page.getAttribute('#tab-fediverse', 'aria-selected')).toBe('true');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('tab-fediverse');
    expect(await page.isVisible('#topic'), 'no topic filter for posts').toBe(false);
    expect(await page.isVisible('#instance')).toBe(true);
    expect(await page.locator('#results > li.social').count()).toBe(10);

    await page.fill('#q', 'Flohmarkt');
    await page.press('#q', 'Enter');
    await settle();
    expect(await texts('#results .handle')).toEqual(expect.arrayContaining(['@gerda@social.example', '@ben@other.example']));
    expect(await page.locator('#results details.cw summary').first().textContent()).toBe('Inhaltswarnung: Schnäppchen');
    await page.selectOption('#order', 'newest');
    await settle();
    expect((await texts('#results .handle')).slice(0, 2)).toEqual(['@ben@other.example', '@gerda@social.example']);
    await page.selectOption('#instance', 'social.example');
    await settle();
    expect(await texts('#results .handle')).toEqual(['@gerda@social.example']);
    for (const snippet of await texts('#results .snippet')) expect(snippet.length).toBeLessThanOrEqual(181);
    await expectAccessible('fediverse results');
    await shot('fediverse');
  });

  it('is usable on a phone-sized screen', async () => {
    const phone = await (await browser.newContext({ locale: 'de-DE', viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true })).newPage();
    watch(phone);
    await phone.goto(`${web.url}/#tab=news`);
    await settle(phone);
    expect(await phone.locator('#results > li').count()).toBeGreaterThan(0);
    const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, 'no sideways scrolling').toBeLessThanOrEqual(0);
    await expectAccessible('phone', phone);
    await shot('phone', phone);
    await phone.close();
  });

  it('shows "Bitte kurz warten" with the Retry-After seconds when the shared budget is spent', async () => {
    let status = 200;
    for (let i = 0; i < 61 && status !== 429; i++) status = (await fetch(`${web.url}/api/social`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status;
    expect(status).toBe(429);
    await page.click('#tab-web');
    await page.fill('#q', 'Haus');
    await page.press('#q', 'Enter');
    await settle();
    await page.waitForSelector('#error:not([hidden])');
    const message = await page.textContent('#error');
    expect(message).toContain('Bitte kurz warten');
    expect(message).toMatch(/Ein neuer Versuch ist in \d+ Sekunden möglich\./);
    expect(await page.getAttribute('#error', 'role')).toBe('alert');
    expect(await page.isDisabled('#retry')).toBe(true);
    expect(await page.textContent('#retry')).toMatch(/^Erneut suchen \(in \d+ s\)$/);
    expect(await page.locator('#results > li').count()).toBe(0);
    expect(await page.isVisible('#pager')).toBe(false);
    await expectAccessible('429 state');
    await shot('rate-limited');
  });

  it('raised no script errors and no CSP violations', () => {
    expect(problems.filter((p) => !/429|Too Many Requests/.test(p))).toEqual([]);
  });
});
