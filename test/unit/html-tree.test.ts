// The HTML tree is built with a tokenizer that skips through text and attribute values
// (services/ingest/extract/html-tree.ts); it must give exactly the tree htmlparser2's own tokenizer
// gives, on hand-made edge cases, on generated markup and on every HTML page of the shared corpus.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer } from 'htmlparser2';
import { describe, expect, it } from 'vitest';
import { decodeHtml } from '../../services/ingest/extract/charset.ts';
import { parseHtmlTree, TOKENIZER } from '../../services/ingest/extract/html-tree.ts';
import type { DomNode } from '../../services/ingest/extract/html-walk.ts';
import { corpusFile, itWithCorpus } from '../helpers/shared-corpus.ts';

type Shape = string | [string, Record<string, string> | null, Shape[]];

function shapeOf(node: DomNode): Shape {
  if (node.nodeType !== 1) return `${node.nodeType}:${node.data ?? ''}`;
  const children: Shape[] = [];
  for (let c = node.firstChild; c; c = c.nextSibling) children.push(shapeOf(c));
  return [node.localName ?? '', (node as unknown as { attribs: Record<string, string> | null }).attribs, children];
}

function treeOf(html: string, tokenizer?: typeof Tokenizer): Shape[] {
  const tree = parseHtmlTree(html, tokenizer);
  return tree.topLevel.map(shapeOf);
}

function expectSameTree(html: string): void {
  expect(treeOf(html), html).toEqual(treeOf(html, Tokenizer));
}

const CASES = [
  '<p>Fish &amp; chips &lt;3 &copy 2024 &notit; &#x41;&#65;&#0; &unknown; & alone</p>',
  '<p>a < b and c<d, 1<2</p><p>x &lt< y</p>',
  '<a href="/x?a=1&amp;b=2&copy=3" title=\'it&apos;s "q"\' data-x=un&amp;quoted data-y=&lt;b>link</a>',
  '<div class="a" id=b hidden data-empty="" data-noquote=x/>text</div>',
  '<title>A &amp; B &lt;title&gt;</title><textarea>&amp; raw</textarea><xmp>&amp; raw</xmp>',
  '<script>if (a < b && c > d) { x = "</p>"; } // &amp;</script><style>a > b { content: "&amp;" }</style>',
  '<script type="application/ld+json">{"name": "A &amp; B"}</script>',
  '<!-- a comment with <b>tags</b> & entities --><!doctype html><?xml version="1.0"?><![CDATA[ x < y ]]>',
  '<svg><title>T &amp; U</title><script/>after &amp; svg</svg><p>after</p>',
  '<script/>text after a self-closed script &amp; more</script>',
  '<p>unterminated &amp',
  '<p title="unterminated attribute &amp',
  "<p title='unterminated single",
  '<p>text to the end with no tag',
  '<p>Straße, Ärger, “Zitat” — €, 😀 &euro; &#x1F600;</p>',
  '<table><tr><td>1<td>2</table><ul><li>a<li>b</ul><p>one<p>two',
  '<P CLASS="Upper" ID=MIXED>Upper Case &AMP; &Amp;</P>',
  '<img src=a.png alt="a > b"><br/><input value="&quot;x&quot;">',
  '',
];

describe('the HTML tree', () => {
  it('uses the skipping tokenizer with the installed htmlparser2', () => {
    expect(TOKENIZER).not.toBe(Tokenizer);
  });

  it('is the same with the stock tokenizer on edge cases', () => {
    for (const html of CASES) expectSameTree(html);
  });

  it('is the same with the stock tokenizer on generated markup', () => {
    const pieces = ['<p>', '</p>', '<a href="x&amp;y">', "<a href='q'>", '<a href=u&lt;v>', '</a>', 'text ', '&amp;', '&lt', '&#65;', '&', '<', '>', '"', "'", '=',
      '<title>', '</title>', '<script>', '</script>', '<!--', '-->', '<br/>', '<div class=c', ' id="i"', '/>', '\n', ' ', 'ä€', '<![CDATA[', ']]>'];
    // A fixed linear congruential sequence: the same strings on every run.
    let seed = 12345;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
    for (let i = 0; i < 2000; i++) {
      let html = '';
      const n = next() % 30;
      for (let j = 0; j < n; j++) html += pieces[next() % pieces.length];
      expectSameTree(html);
    }
  });

  itWithCorpus('is the same with the stock tokenizer on every HTML page of the shared corpus', () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.html?$/.test(name)) files.push(path);
      }
    };
    walk(corpusFile('html'));
    expect(files.length).toBeGreaterThan(100);
    for (const file of files) {
      const html = decodeHtml(new Uint8Array(readFileSync(file))).text;
      // Compared as JSON: a failure message of two whole pages' trees would be unreadable.
      expect(JSON.stringify(treeOf(html)) === JSON.stringify(treeOf(html, Tokenizer)), file).toBe(true);
    }
  }, 120_000);
});
