// A light HTML tree built from htmlparser2's tokenizer, with just what html-walk.ts reads (children,
// siblings, attributes). linkedom builds its DOM from the same parser, so the tree has the same shape,
// but every linkedom node also carries an EventTarget registered in a WeakMap: on the corpus, garbage
// collection of those took half the extraction time (--cpu-prof), and parse + walk ran 6-8x slower
// than on this tree of plain objects, with identical text and signals on all 1222 corpus pages.
import type * as Htmlparser2 from 'htmlparser2';
import type { DomNode } from './html-walk.ts';

// htmlparser2's index also loads its DOM handler and utilities (domhandler, domutils, dom-serializer):
// two thirds of its loading time, in every extraction process, for nothing here. Its package exports
// only the index, so the parser's and tokenizer's own files are found beside it; the index if not.
async function loadParser(): Promise<Pick<typeof Htmlparser2, 'Parser' | 'Tokenizer'>> {
  try {
    const index = import.meta.resolve('htmlparser2');
    const [parser, tokenizer] = await Promise.all([import(new URL('./Parser.js', index).href), import(new URL('./Tokenizer.js', index).href)]);
    if (typeof parser.Parser === 'function' && typeof tokenizer.default === 'function') return { Parser: parser.Parser, Tokenizer: tokenizer.default };
  } catch {
    // Another layout: the index below.
  }
  return import('htmlparser2');
}
const { Parser, Tokenizer } = await loadParser();

// htmlparser2's tokenizer reads text and attribute values one character at a time through its state
// switch, though only "<" and "&" (and the closing quote) change anything there. This one skips to the
// next such character: the same events (test/unit/html-tree.test.ts compares them), the parse about
// 30% cheaper. It overrides two of the tokenizer's internal methods, so it is used only when they are
// there (a new htmlparser2 that renamed them gets the stock tokenizer).
const LT = 0x3c;
const AMP = 0x26;
const DQ = 0x22;
const SQ = 0x27;

interface TokenizerInternals {
  buffer: string;
  offset: number;
  index: number;
  stateText(c: number): void;
  stateInAttributeValueDoubleQuotes(c: number): void;
  stateInAttributeValueSingleQuotes(c: number): void;
}

const stock = Tokenizer.prototype as unknown as TokenizerInternals;

/** Moves the tokenizer to just before the next `a` or `b` (its loop then steps onto it), or to the end. */
function skipTo(t: TokenizerInternals, a: number, b: number): void {
  const buffer = t.buffer;
  let i = t.index - t.offset + 1;
  while (i < buffer.length) {
    const c = buffer.charCodeAt(i);
    if (c === a || c === b) break;
    i++;
  }
  t.index = t.offset + i - 1;
}

class SkippingTokenizer extends Tokenizer {}
Object.assign(SkippingTokenizer.prototype, {
  stateText(this: TokenizerInternals, c: number) {
    if (c === LT || c === AMP) stock.stateText.call(this, c);
    else skipTo(this, LT, AMP);
  },
  stateInAttributeValueDoubleQuotes(this: TokenizerInternals, c: number) {
    if (c === DQ || c === AMP) stock.stateInAttributeValueDoubleQuotes.call(this, c);
    else skipTo(this, DQ, AMP);
  },
  stateInAttributeValueSingleQuotes(this: TokenizerInternals, c: number) {
    if (c === SQ || c === AMP) stock.stateInAttributeValueSingleQuotes.call(this, c);
    else skipTo(this, SQ, AMP);
  },
});

function hasInternals(): boolean {
  const probe = new Tokenizer({}, {} as ConstructorParameters<typeof Tokenizer>[1]) as unknown as Record<string, unknown>;
  return (
    typeof stock.stateText === 'function' &&
    typeof stock.stateInAttributeValueDoubleQuotes === 'function' &&
    typeof stock.stateInAttributeValueSingleQuotes === 'function' &&
    typeof probe.buffer === 'string' && typeof probe.offset === 'number' && typeof probe.index === 'number'
  );
}

/** The tokenizer parseHtmlTree uses; `stock` for the comparison in the tests. */
export const TOKENIZER: typeof Tokenizer = hasInternals() ? SkippingTokenizer : Tokenizer;

const ELEMENT = 1;
const TEXT = 3;

class TreeNode implements DomNode {
  nodeType: number;
  localName?: string;
  data?: string;
  attribs: Record<string, string> | null;
  firstChild: TreeNode | null = null;
  lastChild: TreeNode | null = null;
  nextSibling: TreeNode | null = null;
  parent: TreeNode | null = null;

  constructor(nodeType: number, localName?: string, attribs: Record<string, string> | null = null, data?: string) {
    this.nodeType = nodeType;
    this.localName = localName;
    this.attribs = attribs;
    this.data = data;
  }

  getAttribute(name: string): string | null {
    const value = this.attribs?.[name];
    return value === undefined ? null : value;
  }

  hasAttribute(name: string): boolean {
    return this.attribs !== null && name in this.attribs;
  }

  append(child: TreeNode): void {
    child.parent = this;
    if (this.lastChild) this.lastChild.nextSibling = child;
    else this.firstChild = child;
    this.lastChild = child;
  }
}

export interface HtmlTree {
  /** Top-level nodes (the <html> element, or the elements of a fragment). */
  topLevel: DomNode[];
  /** The <html> element, or null for a fragment. */
  documentElement: DomNode | null;
}

export function parseHtmlTree(html: string, tokenizer: typeof Tokenizer = TOKENIZER): HtmlTree {
  const root = new TreeNode(11);
  let current = root;
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        // No attributes: null, so that the walker's many look-ups on such elements stop at once.
        let any = false;
        for (const _ in attribs) {
          any = true;
          break;
        }
        const el = new TreeNode(ELEMENT, name, any ? attribs : null);
        current.append(el);
        current = el;
      },
      onclosetag() {
        // htmlparser2 reports every close, implied ones included, in stack order.
        if (current.parent) current = current.parent;
      },
      ontext(text) {
        const last = current.lastChild;
        if (last && last.nodeType === TEXT) last.data += text;
        else current.append(new TreeNode(TEXT, undefined, null, text));
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, Tokenizer: tokenizer },
  );
  parser.end(html);
  const topLevel: DomNode[] = [];
  for (let n = root.firstChild; n; n = n.nextSibling) topLevel.push(n);
  const documentElement = topLevel.find((n) => n.nodeType === ELEMENT && n.localName === 'html') ?? null;
  return { topLevel, documentElement };
}
