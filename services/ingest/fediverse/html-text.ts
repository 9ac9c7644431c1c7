import { parseHTML } from 'linkedom';

// Post bodies and profile bios arrive as (sanitised) HTML. We index and excerpt plain text only:
// paragraphs and line breaks become whitespace, entities are decoded, scripts and styles vanish.

interface Node {
  nodeType: number;
  nodeName: string;
  data?: string;
  childNodes: ArrayLike<Node>;
}

const BLOCKS = new Set(['P', 'DIV', 'LI', 'BLOCKQUOTE', 'PRE', 'UL', 'OL', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'TR']);
const DROPPED = new Set(['SCRIPT', 'STYLE', 'TEMPLATE', 'NOSCRIPT']);

function walk(node: Node, out: string[]): void {
  for (const child of Array.from(node.childNodes)) {
    if (child.nodeType === 3) out.push(child.data ?? '');
    else if (child.nodeType !== 1 || DROPPED.has(child.nodeName)) continue;
    else if (child.nodeName === 'BR') out.push('\n');
    else {
      const block = BLOCKS.has(child.nodeName);
      if (block) out.push('\n\n');
      walk(child, out);
      if (block) out.push('\n\n');
    }
  }
}

/** Plain text of an HTML fragment: one space between words, a blank line between paragraphs. */
export function htmlToText(html: string | null | undefined): string {
  if (!html) return '';
  if (!/[<&]/.test(html)) return html.replace(/[ \t\f\r\u00a0]+/g, ' ').trim();
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  const out: string[] = [];
  walk(document.body as unknown as Node, out);
  return out
    .join('')
    .replace(/[ \t\f\r\u00a0]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
