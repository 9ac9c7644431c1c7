// A light HTML tree built from htmlparser2's tokenizer, with just what html-walk.ts reads (children,
// siblings, attributes). linkedom builds its DOM from the same parser, so the tree has the same shape,
// but every linkedom node also carries an EventTarget registered in a WeakMap: on the corpus, garbage
// collection of those took half the extraction time (--cpu-prof), and parse + walk ran 6-8x slower
// than on this tree of plain objects, with identical text and signals on all 1222 corpus pages.
import { Parser } from 'htmlparser2';
import type { DomNode } from './html-walk.ts';

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

export function parseHtmlTree(html: string): HtmlTree {
  const root = new TreeNode(11);
  let current = root;
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        const el = new TreeNode(ELEMENT, name, attribs);
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
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
  const topLevel: DomNode[] = [];
  for (let n = root.firstChild; n; n = n.nextSibling) topLevel.push(n);
  const documentElement = topLevel.find((n) => n.nodeType === ELEMENT && n.localName === 'html') ?? null;
  return { topLevel, documentElement };
}
