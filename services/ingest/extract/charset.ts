// Turning HTML bytes into text with the charset a browser would pick (WHATWG order): byte order mark,
// then the HTTP Content-Type charset, then a <meta> charset in the first bytes, then the XML declaration;
// without any of these, UTF-8 if the bytes are valid UTF-8, else windows-1252 (the usual legacy
// encoding of German pages; "iso-8859-1" is an alias of it in the Encoding Standard).

const PRESCAN_BYTES = 4096;

function bomEncoding(bytes: Uint8Array): { encoding: string; skip: number } | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: 'utf-8', skip: 3 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: 'utf-16le', skip: 2 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: 'utf-16be', skip: 2 };
  return null;
}

/** A charset label TextDecoder knows, in its canonical name, or null. */
export function supportedEncoding(label: string | null | undefined): string | null {
  if (!label) return null;
  try {
    const encoding = new TextDecoder(label.trim().replace(/^["']|["']$/g, '')).encoding;
    // A page cannot really be UTF-16 when its <meta> is readable as ASCII (WHATWG rule).
    return encoding.startsWith('utf-16') ? 'utf-8' : encoding;
  } catch {
    return null;
  }
}

export function charsetFromContentType(contentType: string | undefined): string | null {
  const m = contentType?.match(/charset\s*=\s*["']?([\w.:-]+)/i);
  return m ? supportedEncoding(m[1]) : null;
}

function prescanMeta(bytes: Uint8Array): string | null {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, PRESCAN_BYTES)).toString('latin1');
  const meta = head.match(/<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i);
  if (meta) return supportedEncoding(meta[1]);
  const xml = head.match(/^\s*<\?xml[^>]+encoding\s*=\s*["']([\w.:-]+)/i);
  return xml ? supportedEncoding(xml[1]) : null;
}

export interface DecodedHtml {
  text: string;
  encoding: string;
  /** Where the encoding came from: bom, header, meta, detected. */
  source: 'bom' | 'header' | 'meta' | 'detected';
}

// Pages labelled UTF-8 whose bytes are mostly not UTF-8 are legacy pages with a wrong label (a common
// server default); more broken sequences than valid non-ASCII characters is the sign of it.
function decodeUtf8OrLegacy(bytes: Uint8Array): { text: string; encoding: string } {
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'utf-8' };
  } catch {
    const text = new TextDecoder('utf-8').decode(bytes);
    let broken = 0;
    let valid = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 0xfffd) broken++;
      else if (c > 0x7f) valid++;
    }
    if (broken > valid) return { text: new TextDecoder('windows-1252').decode(bytes), encoding: 'windows-1252' };
    return { text, encoding: 'utf-8' };
  }
}

export function decodeHtml(bytes: Uint8Array, contentType?: string): DecodedHtml {
  const bom = bomEncoding(bytes);
  if (bom) return { text: new TextDecoder(bom.encoding).decode(bytes.subarray(bom.skip)), encoding: bom.encoding, source: 'bom' };
  const declared = charsetFromContentType(contentType) ?? prescanMeta(bytes);
  const source = charsetFromContentType(contentType) ? 'header' : declared ? 'meta' : 'detected';
  if (declared && declared !== 'utf-8') return { text: new TextDecoder(declared).decode(bytes), encoding: declared, source };
  return { ...decodeUtf8OrLegacy(bytes), source };
}
