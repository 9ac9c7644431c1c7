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
// escape '>' inside attribute values, so a tag ends at the first '>'.
const TOKEN_SOURCE = /<!\[CDATA\[([\s\S]*?)\]\]>|<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<!DOCTYPE[^>]*>|<(\/?)([A-Za-z_][\w.:-]*)([^>]*?)(\/?)>|([^<]+)/;

export function scanXml(xml: string, handlers: XmlHandlers): void {
  // A fresh regex per call: a shared global one would carry lastIndex between callers.
  const tokens = new RegExp(TOKEN_SOURCE.source, 'g');
  for (let m = tokens.exec(xml); m !== null; m = tokens.exec(xml)) {
    if (m[6] !== undefined) handlers.text(decodeXmlEntities(m[6]));
    else if (m[1] !== undefined) handlers.text(m[1]);
    else if (m[3] !== undefined) {
      if (m[2] === '/') handlers.close(m[3]);
      else handlers.open(m[3], m[4], m[5] === '/');
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
  const escaped = qualifiedName.replace(/[.:]/g, '\\$&');
  const m = xml.match(new RegExp(`<${escaped}(?:\\s[^>]*)?>([\\s\\S]*?)</${escaped}>`));
  if (!m) return null;
  const text = decodeXmlEntities(m[1].replace(/<[^>]+>/g, '')).trim();
  return text || null;
}
