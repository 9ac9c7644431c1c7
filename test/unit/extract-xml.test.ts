import { describe, expect, it } from 'vitest';
import { elementText, scanXml } from '../../services/ingest/extract/xml.ts';

// The DOCX/ODT XML scanner: structure and text as before, and a single pass on hostile parts (the
// CLI-level proof with 1 MB files is in test/e2e/hostile-ingest.test.ts).

function tokens(xml: string): string[] {
  const out: string[] = [];
  scanXml(xml, { open: (name, attributes, selfClosing) => out.push(`<${name}${attributes}${selfClosing ? '/' : ''}>`), close: (name) => out.push(`</${name}>`), text: (text) => out.push(text) });
  return out;
}

describe('scanXml', () => {
  it('reports tags, attributes and decoded text; skips declarations, comments, DOCTYPE; keeps CDATA text', () => {
    expect(tokens('<?xml version="1.0"?><!DOCTYPE x><w:p a="1"><w:t>a &lt; b &#252; < c</w:t><w:br/><!-- x --><![CDATA[z<]]></w:p >')).toEqual([
      '<w:p a="1">', '<w:t>', 'a < b ü ', ' c', '</w:t>', '<w:br/>', 'z<', '</w:p>',
    ]);
  });

  it.each(['<!--', '<![CDATA[', '<?', '<w:t a="', '<!DOCTYPE'])('stops at a %j that never ends, after the text before it', (opening) => {
    let calls = 0;
    const xml = `<w:t>vorher</w:t>${opening.repeat(2 ** 20 / opening.length)}`;
    scanXml(xml, { open: () => calls++, close: () => calls++, text: () => calls++ });
    expect(calls).toBe(3);
  });

  it('finds element text without a regex over the whole part', () => {
    expect(elementText('<cp:x><dc:title>Der <b>Titel</b> &amp; mehr</dc:title></cp:x>', 'dc:title')).toBe('Der Titel & mehr');
    expect(elementText('<dc:titles>nein</dc:titles><dc:title/><dc:title a="1">ja</dc:title>', 'dc:title')).toBe('ja');
    expect(elementText(`${'<dc:title>'.repeat(100_000)}`, 'dc:title')).toBeNull();
    expect(elementText(`${'<dc:title '.repeat(100_000)}/>`, 'dc:title')).toBeNull();
  });
});
