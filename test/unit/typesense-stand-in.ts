// A stand-in transport for the typesense client: an axios adapter that answers the subset of the
// Typesense HTTP API that services/index/typesense/ uses, from memory. It is NOT Typesense: it
// implements the documented semantics of the parameters the adapter sends (filter_by with :=, :!=,
// numeric comparisons, &&, ||, brackets and backtick literals; _eval sorting; strict text matching
// without typos, prefixes or dropped words) so that the adapter's logic (paging, match types,
// aliases, batching, retries, failover) can be tested without a server. Ranking inside a text
// query is a simple term-frequency score, not Typesense's.

import type { ConfigurationOptions } from 'typesense';

/** The axios adapter type the typesense client accepts. */
export type StandInAdapter = NonNullable<ConfigurationOptions['axiosAdapter']>;

interface AdapterConfig {
  url?: string;
  method?: string;
  params?: Record<string, unknown>;
  data?: unknown;
}

interface AdapterResponse {
  data: string;
  status: number;
  statusText: string;
  headers: Record<string, string>;
  config: AdapterConfig;
  request: object;
}

type Doc = Record<string, unknown> & { id: string };
interface Field {
  name: string;
  type: string;
  optional?: boolean;
  index?: boolean;
  facet?: boolean;
}
interface Collection {
  name: string;
  fields: Field[];
  docs: Map<string, { doc: Doc; seq: number }>;
  schema: Record<string, unknown>;
}

class HttpFailure extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export interface RecordedRequest {
  method: string;
  path: string;
  node: string;
}

export class TypesenseStandIn {
  readonly collections = new Map<string, Collection>();
  readonly aliases = new Map<string, string>();
  readonly requests: RecordedRequest[] = [];
  /** Nodes ("host:port") that refuse connections. */
  readonly down = new Set<string>();
  private failures: { count: number; status: number; match: (method: string, path: string) => boolean }[] = [];
  private seq = 0;

  /** The next `count` requests matching `match` fail with `status` (a 5xx by default). */
  failNext(count: number, status = 503, match: (method: string, path: string) => boolean = () => true): void {
    this.failures.push({ count, status, match });
  }

  readonly adapter: StandInAdapter = ((config: AdapterConfig) => this.handle(config)) as unknown as StandInAdapter;

  private async handle(config: AdapterConfig): Promise<AdapterResponse> {
    const url = new URL(config.url ?? '');
    const method = (config.method ?? 'get').toUpperCase();
    const node = url.host;
    this.requests.push({ method, path: url.pathname, node });
    if (this.down.has(node)) throw Object.assign(new Error(`connect ECONNREFUSED ${node}`), { code: 'ECONNREFUSED' });
    const failure = this.failures.find((f) => f.count > 0 && f.match(method, url.pathname));
    if (failure) {
      failure.count--;
      return this.reply(config, failure.status, { message: 'Not Ready or Lagging' });
    }
    try {
      const result = this.route(method, url.pathname, { ...Object.fromEntries(url.searchParams), ...(config.params ?? {}) }, config.data);
      if (typeof result === 'string') return { data: result, status: 200, statusText: 'OK', headers: { 'content-type': 'text/plain; charset=utf-8' }, config, request: {} };
      return this.reply(config, 200, result);
    } catch (error) {
      if (error instanceof HttpFailure) return this.reply(config, error.status, { message: error.message });
      throw error;
    }
  }

  private reply(config: AdapterConfig, status: number, body: unknown): AdapterResponse {
    return { data: JSON.stringify(body), status, statusText: String(status), headers: { 'content-type': 'application/json; charset=utf-8' }, config, request: {} };
  }

  private resolve(name: string): Collection {
    const collection = this.collections.get(this.aliases.get(name) ?? name);
    if (!collection) throw new HttpFailure(404, `Collection not found`);
    return collection;
  }

  private route(method: string, path: string, params: Record<string, unknown>, data: unknown): unknown {
    const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
    const body = () => (typeof data === 'string' ? JSON.parse(data) : data) as Record<string, unknown>;
    if (parts[0] === 'health') return { ok: true };
    if (parts[0] === 'multi_search' && method === 'POST') {
      const searches = (body().searches ?? []) as Record<string, unknown>[];
      return {
        results: searches.map((search) => {
          try {
            return this.search(this.resolve(String(search.collection)), { ...params, ...search });
          } catch (error) {
            if (error instanceof HttpFailure) return { code: error.status, error: error.message };
            throw error;
          }
        }),
      };
    }
    if (parts[0] === 'aliases') {
      if (method === 'PUT') {
        const target = String(body().collection_name);
        if (!this.collections.has(target)) throw new HttpFailure(404, 'Collection not found');
        this.aliases.set(parts[1], target);
        return { name: parts[1], collection_name: target };
      }
      const target = this.aliases.get(parts[1]);
      if (!target) throw new HttpFailure(404, 'Not Found');
      if (method === 'DELETE') this.aliases.delete(parts[1]);
      return { name: parts[1], collection_name: target };
    }
    if (parts[0] !== 'collections') throw new HttpFailure(404, 'Not Found');
    if (parts.length === 1) {
      if (method === 'POST') return this.createCollection(body());
      return [...this.collections.values()].map((c) => c.schema);
    }
    if (parts.length === 2) {
      const collection = this.resolve(parts[1]);
      if (method === 'DELETE') this.collections.delete(collection.name);
      return { ...collection.schema, num_documents: collection.docs.size };
    }
    const collection = this.resolve(parts[1]);
    if (parts[2] !== 'documents') throw new HttpFailure(404, 'Not Found');
    if (parts.length === 3) {
      if (method === 'POST') return this.upsert(collection, body(), String(params.action ?? 'create'));
      if (method === 'DELETE') {
        const matches = compileFilter(String(params.filter_by ?? ''), collection);
        let deleted = 0;
        for (const [id, entry] of collection.docs) {
          if (matches(entry.doc)) {
            collection.docs.delete(id);
            deleted++;
          }
        }
        return { num_deleted: deleted };
      }
    }
    if (parts[3] === 'import' && method === 'POST') {
      return String(data)
        .split('\n')
        .filter((line) => line.trim())
        .map((line) => {
          try {
            this.upsert(collection, JSON.parse(line), String(params.action ?? 'create'));
            return JSON.stringify({ success: true });
          } catch (error) {
            if (!(error instanceof HttpFailure)) throw error;
            return JSON.stringify({ success: false, code: error.status, error: error.message, document: line });
          }
        })
        .join('\n');
    }
    if (parts[3] === 'export') return [...collection.docs.values()].map((entry) => JSON.stringify(entry.doc)).join('\n');
    if (parts[3] === 'search') return this.search(collection, params);
    const entry = collection.docs.get(parts[3]);
    if (!entry) throw new HttpFailure(404, 'Could not find a document with that id');
    if (method === 'DELETE') collection.docs.delete(parts[3]);
    return entry.doc;
  }

  private createCollection(schema: Record<string, unknown>): unknown {
    const name = String(schema.name);
    if (this.collections.has(name)) throw new HttpFailure(409, `A collection with name \`${name}\` already exists.`);
    const fields = schema.fields as Field[];
    for (const field of fields) {
      if (field.index === false && !field.optional) throw new HttpFailure(400, `Field \`${field.name}\` must be optional when index is false`);
      if (!['string', 'string[]', 'bool', 'int64', 'int32', 'float'].includes(field.type)) throw new HttpFailure(400, `Field \`${field.name}\` has an invalid type`);
    }
    this.collections.set(name, { name, fields, docs: new Map(), schema: { ...schema, created_at: Date.now() } });
    return schema;
  }

  private upsert(collection: Collection, doc: Record<string, unknown>, action: string): unknown {
    if (typeof doc.id !== 'string' || !doc.id) throw new HttpFailure(400, 'Document `id` must be a non-empty string');
    if (action !== 'upsert' && action !== 'create') throw new HttpFailure(400, `unsupported action ${action} in the stand-in`);
    if (action === 'create' && collection.docs.has(doc.id)) throw new HttpFailure(409, 'A document with id already exists.');
    for (const field of collection.fields) {
      const value = doc[field.name];
      if (value === undefined || value === null) {
        if (!field.optional) throw new HttpFailure(400, `Field \`${field.name}\` has been declared in the schema, but is not found in the document.`);
        continue;
      }
      const ok =
        field.type === 'string' ? typeof value === 'string'
        : field.type === 'string[]' ? Array.isArray(value) && value.every((v) => typeof v === 'string')
        : field.type === 'bool' ? typeof value === 'boolean'
        : Number.isInteger(value);
      if (!ok) throw new HttpFailure(400, `Field \`${field.name}\` must be a ${field.type}.`);
    }
    const previous = collection.docs.get(doc.id);
    collection.docs.set(doc.id, { doc: doc as Doc, seq: previous?.seq ?? ++this.seq });
    return doc;
  }

  private search(collection: Collection, params: Record<string, unknown>): unknown {
    const q = String(params.q ?? '');
    const filter = params.filter_by ? compileFilter(String(params.filter_by), collection) : () => true;
    let scored: { doc: Doc; seq: number; score: number }[];
    if (q === '*') {
      scored = [...collection.docs.values()].filter((entry) => filter(entry.doc)).map((entry) => ({ ...entry, score: 0 }));
    } else {
      for (const [key, expected] of Object.entries({ num_typos: 0, drop_tokens_threshold: 0, prefix: false, typo_tokens_threshold: 0 })) {
        if (String(params[key]) !== String(expected)) throw new HttpFailure(400, `the stand-in emulates strict text matching only: ${key} must be ${expected}`);
      }
      const tokens = q.toLowerCase().split(/\s+/).filter(Boolean);
      const fields = String(params.query_by ?? '').split(',').map((f) => f.trim());
      const weights = params.query_by_weights ? String(params.query_by_weights).split(',').map(Number) : fields.map(() => 1);
      scored = [];
      for (const entry of collection.docs.values()) {
        if (!filter(entry.doc)) continue;
        let score = 0;
        let matched = false;
        fields.forEach((field, i) => {
          const words = String(entry.doc[field] ?? '').toLowerCase().split(/\s+/);
          if (!tokens.every((token) => words.includes(token))) return;
          matched = true;
          const tf = tokens.reduce((sum, token) => sum + words.filter((w) => w === token).length, 0);
          score += weights[i] * (1000 + Math.round((100 * tf) / Math.sqrt(words.length)));
        });
        if (matched) scored.push({ ...entry, score });
      }
    }
    const sorters = parseSortBy(String(params.sort_by ?? (q === '*' ? '' : '_text_match:desc')), collection);
    scored.sort((a, b) => {
      for (const sorter of sorters) {
        const order = sorter(a, b);
        if (order) return order;
      }
      return a.seq - b.seq;
    });
    const perPage = params.limit !== undefined ? Number(params.limit) : Number(params.per_page ?? 10);
    const offset = params.offset !== undefined ? Number(params.offset) : (Number(params.page ?? 1) - 1) * perPage;
    if (perPage > 250) throw new HttpFailure(422, 'Only upto 250 hits can be fetched per page.');
    const include = params.include_fields ? new Set(String(params.include_fields).split(',')) : null;
    const exclude = new Set(String(params.exclude_fields ?? '').split(',').filter(Boolean));
    const project = (doc: Doc) => Object.fromEntries(Object.entries(doc).filter(([key]) => (include ? include.has(key) : !exclude.has(key))));
    const response: Record<string, unknown> = {
      found: scored.length,
      out_of: collection.docs.size,
      page: Math.floor(offset / Math.max(1, perPage)) + 1,
      search_time_ms: 0,
      hits: scored.slice(offset, offset + perPage).map((entry) => ({ document: project(entry.doc), text_match: entry.score })),
    };
    if (params.facet_by) {
      const field = String(params.facet_by);
      const counts = new Map<string, number>();
      for (const entry of scored) {
        const value = entry.doc[field];
        for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) counts.set(String(v), (counts.get(String(v)) ?? 0) + 1);
      }
      const sorted = [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(params.max_facet_values ?? 10));
      response.facet_counts = [{ field_name: field, counts: sorted.map(([value, count]) => ({ value, count, highlighted: value })), stats: { total_values: counts.size } }];
    }
    return response;
  }
}

type Predicate = (doc: Record<string, unknown>) => boolean;

function tokenizeExpression(source: string): string[] {
  const tokens: string[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    if (/\s/.test(c)) i++;
    else if (source.startsWith('&&', i) || source.startsWith('||', i)) (tokens.push(source.slice(i, i + 2)), (i += 2));
    else if ('()[],'.includes(c)) (tokens.push(c), i++);
    else if (c === '`') {
      const end = source.indexOf('`', i + 1);
      if (end < 0) throw new HttpFailure(400, 'Could not parse the filter query: unbalanced backtick');
      tokens.push(source.slice(i, end + 1));
      i = end + 1;
    } else {
      let j = i;
      while (j < source.length && !/[\s()[\],`]/.test(source[j]) && !source.startsWith('&&', j) && !source.startsWith('||', j)) j++;
      tokens.push(source.slice(i, j));
      i = j;
    }
  }
  return tokens;
}

function unquote(token: string): string {
  return token.startsWith('`') ? token.slice(1, -1) : token;
}

/** filter_by of the stand-in: clauses `field:=v`, `field:=[a, b]`, `field:!=v`, `field:>=n`, with &&, || and (). */
export function compileFilter(source: string, collection: { fields: Field[] }): Predicate {
  const tokens = tokenizeExpression(source);
  // Typesense counts clauses and operators and refuses more than 100 ("too many operations").
  const operations = tokens.filter((t) => t === '&&' || t === '||').length * 2 + 1;
  if (operations > 100) throw new HttpFailure(400, '`filter_by` has too many operations.');
  let pos = 0;
  const types = new Map(collection.fields.map((field) => [field.name, field]));
  types.set('id', { name: 'id', type: 'string' });

  function parseOr(): Predicate {
    const parts = [parseAnd()];
    while (tokens[pos] === '||') (pos++, parts.push(parseAnd()));
    return parts.length === 1 ? parts[0] : (doc) => parts.some((part) => part(doc));
  }
  function parseAnd(): Predicate {
    const parts = [parseUnary()];
    while (tokens[pos] === '&&') (pos++, parts.push(parseUnary()));
    return parts.length === 1 ? parts[0] : (doc) => parts.every((part) => part(doc));
  }
  function parseUnary(): Predicate {
    if (tokens[pos] === '(') {
      pos++;
      const inner = parseOr();
      if (tokens[pos++] !== ')') throw new HttpFailure(400, 'Could not parse the filter query: missing )');
      return inner;
    }
    return parseClause();
  }
  function parseClause(): Predicate {
    const head = tokens[pos++] ?? '';
    const match = /^([A-Za-z_][\w.]*):(=|!=|>=|<=|>|<)?(.*)$/.exec(head);
    if (!match) throw new HttpFailure(400, `Could not parse the filter query: ${head}`);
    const [, name, op, rest] = match;
    if (!op) throw new HttpFailure(400, `the stand-in supports only exact (:=) string filters, got ${head}`);
    const field = types.get(name);
    if (!field) throw new HttpFailure(404, `Could not find a filter field named \`${name}\` in the schema.`);
    if (field.index === false) throw new HttpFailure(400, `Cannot filter on non-indexed field \`${name}\`.`);
    let values: string[];
    if (rest) values = [rest];
    else if (tokens[pos] === '[') {
      pos++;
      values = [];
      while (tokens[pos] !== ']') {
        if (pos >= tokens.length) throw new HttpFailure(400, 'Could not parse the filter query: missing ]');
        if (tokens[pos] !== ',') values.push(unquote(tokens[pos]));
        pos++;
      }
      pos++;
    } else values = [unquote(tokens[pos++] ?? '')];
    values = values.map(unquote);
    const equalsAny = (value: unknown): boolean => {
      const items = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
      return items.some((item) => values.some((v) => String(item).toLowerCase() === v.toLowerCase()));
    };
    if (op === '=') return (doc) => equalsAny(doc[name]);
    if (op === '!=') return (doc) => !equalsAny(doc[name]);
    const bound = Number(values[0]);
    if (!Number.isFinite(bound)) throw new HttpFailure(400, `Numeric filter on \`${name}\` needs a number`);
    const compare = { '>=': (a: number) => a >= bound, '<=': (a: number) => a <= bound, '>': (a: number) => a > bound, '<': (a: number) => a < bound }[op]!;
    return (doc) => typeof doc[name] === 'number' && compare(doc[name] as number);
  }

  const predicate = parseOr();
  if (pos !== tokens.length) throw new HttpFailure(400, `Could not parse the filter query near ${tokens[pos]}`);
  return predicate;
}

type Sorter = (a: { doc: Doc; score: number }, b: { doc: Doc; score: number }) => number;

function splitTopLevel(source: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let inQuote = false;
  let start = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '`') inQuote = !inQuote;
    else if (!inQuote && (c === '(' || c === '[')) depth++;
    else if (!inQuote && (c === ')' || c === ']')) depth--;
    else if (!inQuote && depth === 0 && c === ',') (parts.push(source.slice(start, i)), (start = i + 1));
  }
  parts.push(source.slice(start));
  return parts.map((part) => part.trim()).filter(Boolean);
}

export function parseSortBy(source: string, collection: { fields: Field[] }): Sorter[] {
  const parts = splitTopLevel(source);
  if (parts.length > 3) throw new HttpFailure(400, 'Only upto 3 sort_by fields can be specified.');
  return parts.map((part): Sorter => {
    const colon = part.lastIndexOf(':');
    const direction = part.slice(colon + 1).trim().toLowerCase();
    if (direction !== 'asc' && direction !== 'desc') throw new HttpFailure(400, `Order for field \`${part}\` should be either ASC or DESC.`);
    const sign = direction === 'desc' ? -1 : 1;
    const expression = part.slice(0, colon).trim();
    if (expression === '_text_match') return (a, b) => sign * (a.score - b.score);
    if (expression.startsWith('_eval(')) {
      const inner = expression.slice('_eval('.length, -1).trim();
      let score: (doc: Doc) => number;
      if (inner.startsWith('[')) {
        // Weighted form: the score of the first expression a document satisfies.
        const items = splitTopLevel(inner.slice(1, -1)).map((item) => {
          const weightAt = item.lastIndexOf(':');
          const expr = item.slice(0, weightAt).trim().replace(/^\(|\)$/g, '');
          return { predicate: compileFilter(expr, collection), weight: Number(item.slice(weightAt + 1)) };
        });
        score = (doc) => items.find((item) => item.predicate(doc))?.weight ?? 0;
      } else {
        const predicate = compileFilter(inner, collection);
        score = (doc) => (predicate(doc) ? 1 : 0);
      }
      return (a, b) => sign * (score(a.doc) - score(b.doc));
    }
    const field = collection.fields.find((f) => f.name === expression);
    if (!field || (field.type !== 'int64' && field.type !== 'int32' && field.type !== 'float' && field.type !== 'bool')) {
      throw new HttpFailure(404, `Could not find a field named \`${expression}\` in the schema for sorting.`);
    }
    return (a, b) => {
      const x = a.doc[expression];
      const y = b.doc[expression];
      // Missing values sort last whatever the direction (Typesense's default for optional numbers).
      if (x === undefined && y === undefined) return 0;
      if (x === undefined) return 1;
      if (y === undefined) return -1;
      return sign * (Number(x) - Number(y));
    };
  });
}
