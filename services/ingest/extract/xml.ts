// A minimal streaming XML scanner for the parts of DOCX and ODT files. These parts are machine-written
// and only their element structure and text matter, so a tag scanner is enough; a DOM of a 60 MB
// document.xml would cost several times its size in memory.

export interface XmlHandlers {
  open(name: string, rawAttributes: string, selfClosing: boolean): void;
  close(name: string): void;
  text(text: string): void;
}

const ENTITY_RE = /&(?:#(\d+)|#x([0-9a-fA-F]+)|(lt|gt|amp|quot|apos));/g;
const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

export function decodeXmlEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(ENTITY_RE, (whole, dec: string | undefined, hex: string | undefined, name: string | undefined) => {
    if (name) return NAMED[name];
    const code = dec ? Number(dec) : parseInt(hex!, 16);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

// Comments, processing instructions, CDATA and DOCTYPE are skipped; CDATA text is kept. Office writers
// escape '>' inside attribute values, so a tag ends at the first '>'. A hand-written scanner with
// indexOf, not a regex: every character is looked at a bounded number of times, also on hostile
// parts ('<!--' or '<![CDATA[' repeated a million times without an end made the regex rescan the
// rest of the part from each of them). A construct without its end ends the scan: no end can
// follow for a later one either.
const TAG_NAME = /^[A-Za-z_][\w.:-]*/;
const NAME_START = /^[A-Za-z_]$/;

export function scanXml(xml: string, handlers: XmlHandlers): void {
  let at = 0;
  while (at < xml.length) {
    const lt = xml.indexOf('<', at);
    if (lt !== at) {
      handlers.text(decodeXmlEntities(xml.slice(at, lt === -1 ? xml.length : lt)));
      if (lt === -1) return;
    }
    if (xml.startsWith('<![CDATA[', lt)) {
      const end = xml.indexOf(']]>', lt + 9);
      if (end === -1) return;
      handlers.text(xml.slice(lt + 9, end));
      at = end + 3;
    } else if (xml.startsWith('<!--', lt)) {
      const end = xml.indexOf('-->', lt + 4);
      if (end === -1) return;
      at = end + 3;
    } else if (xml.startsWith('<?', lt)) {
      const end = xml.indexOf('?>', lt + 2);
      if (end === -1) return;
      at = end + 2;
    } else if (xml.startsWith('<!DOCTYPE', lt)) {
      const end = xml.indexOf('>', lt + 9);
      if (end === -1) return;
      at = end + 1;
    } else {
      const closing = xml[lt + 1] === '/';
      const start = lt + (closing ? 2 : 1);
      // A '<' not followed by a name is not a tag: skip that character only (as the regex did).
      if (!NAME_START.test(xml[start] ?? '')) {
        at = lt + 1;
        continue;
      }
      const gt = xml.indexOf('>', start);
      if (gt === -1) return;
      at = gt + 1;
      const inner = xml.slice(start, gt);
      const name = TAG_NAME.exec(inner)![0];
      if (closing) {
        handlers.close(name);
        continue;
      }
      const selfClosing = inner.endsWith('/');
      handlers.open(name, inner.slice(name.length, selfClosing ? -1 : undefined), selfClosing);
    }
  }
}

export function attributeValue(rawAttributes: string, name: string): string | null {
  const m = rawAttributes.match(new RegExp(`(?:^|\\s)${name.replace(/[.:]/g, '\\$&')}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`));
  return m ? decodeXmlEntities(m[1] ?? m[2]) : null;
}

/** Text content of the first element with that qualified name ("dc:title"), or null. */
export function elementText(xml: string | null, qualifiedName: string): string | null {
  if (!xml) return null;
  // indexOf, not a regex: a part with many openings and no closing tag stays linear.
  const close = `</${qualifiedName}>`;
  for (let at = xml.indexOf(`<${qualifiedName}`); at !== -1; at = xml.indexOf(`<${qualifiedName}`, at + 1)) {
    const after = xml[at + qualifiedName.length + 1];
    if (after !== '>' && !/\s/.test(after ?? '')) continue;
    const gt = xml.indexOf('>', at);
    if (gt === -1) return null;
    if (xml[gt - 1] === '/') {
      at = gt; // openings before this '>' all end here: look on after it
      continue;
    }
    const end = xml.indexOf(close, gt);
    if (end === -1) return null;
    const text = decodeXmlEntities(stripTags(xml.slice(gt + 1, end))).trim();
    return text || null;
  }
  return null;
}

function stripTags(text: string): string {
  let out = '';
  let at = 0;
  for (let lt = text.indexOf('<'); lt !== -1; lt = text.indexOf('<', at)) {
    const gt = text.indexOf('>', lt);
    if (gt === -1) break;
    out += text.slice(at, lt);
    at = gt + 1;
  }
  return out + text.slice(at);
}
