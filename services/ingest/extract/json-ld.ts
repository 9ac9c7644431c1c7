// schema.org JSON-LD: flattening the blocks of a page (arrays, @graph, nested mainEntity) into nodes,
// and picking the node that describes the page itself rather than the site, the publisher or a breadcrumb.

export type JsonLdNode = Record<string, unknown>;

const MAX_NODES = 200;

function typesOf(node: JsonLdNode): string[] {
  const t = node['@type'];
  const list = Array.isArray(t) ? t : [t];
  return list.filter((x): x is string => typeof x === 'string').map((x) => x.replace(/^.*[/#:]/, ''));
}

export function parseJsonLd(blocks: string[]): JsonLdNode[] {
  const nodes: JsonLdNode[] = [];
  const visit = (value: unknown, depth: number) => {
    if (nodes.length >= MAX_NODES || depth > 6 || value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      for (const v of value) visit(v, depth + 1);
      return;
    }
    const node = value as JsonLdNode;
    if ('@type' in node) nodes.push(node);
    if (Array.isArray(node['@graph'])) visit(node['@graph'], depth + 1);
    for (const key of ['mainEntity', 'mainEntityOfPage', 'hasPart']) {
      const child = node[key];
      if (child && typeof child === 'object') visit(child, depth + 1);
    }
  };
  for (const raw of blocks) {
    // Pages often wrap JSON-LD in HTML comments or CDATA, and some end blocks with stray semicolons.
    const text = raw.trim().replace(/^<!--|-->$/g, '').replace(/^\/\/<!\[CDATA\[|\/\/\]\]>$/g, '').replace(/;\s*$/, '').trim();
    if (!text) continue;
    try {
      visit(JSON.parse(text), 0);
    } catch {
      // A broken block is ignored like a browser ignores it; the page still has its other signals.
    }
  }
  return nodes;
}

const PAGE_TYPES = /^(Article|NewsArticle|\w+NewsArticle|ReportageNewsArticle|BlogPosting|LiveBlogPosting|Report|ScholarlyArticle|TechArticle|Legislation|LegislationObject|Book|Chapter|CreativeWork|Recipe|Review|Event|Product|FAQPage|QAPage|HowTo|DigitalDocument|Dataset)$/;
const NEWS_TYPES = /NewsArticle$|^LiveBlogPosting$/;

export function nodeTypes(node: JsonLdNode): string[] {
  return typesOf(node);
}

/** The node describing the page's content, preferring articles and legislation over WebPage. */
export function mainNode(nodes: JsonLdNode[]): JsonLdNode | null {
  return nodes.find((n) => typesOf(n).some((t) => PAGE_TYPES.test(t))) ?? nodes.find((n) => typesOf(n).some((t) => /^(WebPage|ItemPage|AboutPage|CollectionPage)$/.test(t))) ?? null;
}

export function isNewsNode(node: JsonLdNode): boolean {
  return typesOf(node).some((t) => NEWS_TYPES.test(t));
}

export function stringProp(node: JsonLdNode | null, key: string): string | null {
  if (!node) return null;
  const v = node[key];
  if (typeof v === 'string') return v.trim() || null;
  if (Array.isArray(v) && typeof v[0] === 'string') return v[0].trim() || null;
  if (v && typeof v === 'object' && typeof (v as JsonLdNode)['@value'] === 'string') return ((v as JsonLdNode)['@value'] as string).trim() || null;
  return null;
}
