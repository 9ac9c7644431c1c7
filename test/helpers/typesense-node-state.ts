// The data of one Typesense node of the stand-in (collections, documents, aliases, API keys) and how
// it answers one request. It is NOT Typesense: it implements, for the subset of the HTTP API that
// services/index/typesense/ uses, the behaviour Typesense's source shows (file names in the
// comments refer to github.com/typesense/typesense, v30). Ranking inside a text query is a simple
// term-frequency score, not Typesense's; everything else the adapter relies on (filters, sorting,
// ties, paging, errors and their status codes) follows the server.

export type Doc = Record<string, unknown> & { id: string };
export interface Field {
  name: string;
  type: string;
  optional?: boolean;
  index?: boolean;
  facet?: boolean;
  sort?: boolean;
}
export interface Collection {
  name: string;
  fields: Field[];
  docs: Map<string, { doc: Doc; seq: number }>;
  schema: Record<string, unknown>;
  nextSeq: number;
}
export interface ApiKey {
  id: number;
  value: string;
  description: string;
  actions: string[];
  collections: string[];
  expires_at: number;
}

export class HttpFailure extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export interface Reply {
  status: number;
  body: unknown;
  /** JSONL answers (import, export) are text. */
  text?: boolean;
}

/** `resource:operation` of a route, as route_path::_get_action() in src/http_data.cpp. */
export function actionOf(method: string, parts: string[]): string {
  let resource = '';
  let hasId = false;
  const named = routeParams(parts);
  parts.forEach((part, i) => {
    if (i === 0 && parts.length > 2 && part === 'collections') return;
    if (named.has(i)) hasId = true;
    else resource = resource ? `${resource}/${part}` : part;
  });
  if (resource === 'multi_search' || resource === 'documents/search') return 'documents:search';
  if (resource === 'documents/import' || resource === 'documents/export') return `documents:${resource.slice('documents/'.length)}`;
  const operation = { GET: hasId ? 'get' : 'list', POST: 'create', PUT: 'upsert', DELETE: 'delete', PATCH: 'update' }[method] ?? 'unknown';
  return `${resource}:${operation}`;
}

/** Which path parts are route parameters (:collection, :id, :alias) in src/main/typesense_server.cpp. */
function routeParams(parts: string[]): Set<number> {
  const named = new Set<number>();
  if (parts[0] === 'collections' && parts.length >= 2) named.add(1);
  if (parts[0] === 'collections' && parts[2] === 'documents' && parts.length === 4 && !['search', 'import', 'export'].includes(parts[3])) named.add(3);
  if ((parts[0] === 'aliases' || parts[0] === 'keys') && parts.length === 2) named.add(1);
  return named;
}

/** Writes go through Raft (src/http_server.cpp is_write_request: everything but GETs, multi_search and search). */
export function isWriteRequest(method: string, parts: string[]): boolean {
  if (parts[0] === 'multi_search') return false;
  return method !== 'GET';
}

// ---- tokens ---------------------------------------------------------------------------------

/**
 * Tokens of a string value as Typesense indexes them for the default locale (src/tokenizer.cpp):
 * split on whitespace (and token_separators), lower-cased, diacritics folded to ASCII, and every
 * other non-alphanumeric character dropped (unless listed in symbols_to_index).
 */
export function tokensOf(value: string, symbols: readonly string[] = [], separators: readonly string[] = []): string[] {
  let text = value;
  for (const separator of separators) text = text.split(separator).join(' ');
  return text
    .split(/\s+/)
    .map((word) =>
      [...word.normalize('NFKD').replace(/\p{M}/gu, '').replace(/ß/g, 'ss').toLowerCase()]
        .filter((c) => /[\p{L}\p{N}]/u.test(c) || symbols.includes(c))
        .join(''),
    )
    .filter(Boolean);
}

function sameTokens(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((token, i) => token === b[i]);
}

// ---- filter_by ------------------------------------------------------------------------------

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

export interface FilterContext {
  fields: Field[];
  schema?: Record<string, unknown>;
}

/** filter_by: clauses `field:=v`, `field:=[a, b]`, `field:!=v`, `field:>=n`, with &&, || and (). */
export function compileFilter(source: string, collection: FilterContext): Predicate {
  const tokens = tokenizeExpression(source);
  // src/filter.cpp parse_filter_query: the postfix form (clauses + operators) may hold at most
  // filter_by_max_ops (100) items.
  const operations = tokens.filter((t) => t === '&&' || t === '||').length * 2 + 1;
  if (operations > 100) {
    throw new HttpFailure(400, '`filter_by` has too many operations. Maximum allowed: 100. Use `--filter-by-max-ops` command line argument to customize this value.');
  }
  let pos = 0;
  const types = new Map(collection.fields.map((field) => [field.name, field]));
  const symbols = (collection.schema?.symbols_to_index as string[] | undefined) ?? [];
  const separators = (collection.schema?.token_separators as string[] | undefined) ?? [];

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
      if (tokens[pos++] !== ')') throw new HttpFailure(400, 'Could not parse the filter query.');
      return inner;
    }
    return parseClause();
  }
  function parseClause(): Predicate {
    const head = tokens[pos++] ?? '';
    const match = /^([A-Za-z_][\w.]*):(=|!=|>=|<=|>|<)?(.*)$/.exec(head);
    if (!match) throw new HttpFailure(400, 'Could not parse the filter query.');
    const [, name, op, rest] = match;
    if (!op) throw new HttpFailure(400, `the stand-in supports only exact (:=) string filters, got ${head}`);
    let values: string[];
    if (rest) values = [rest];
    else if (tokens[pos] === '[') {
      pos++;
      values = [];
      while (tokens[pos] !== ']') {
        if (pos >= tokens.length) throw new HttpFailure(400, 'Could not parse the filter query.');
        if (tokens[pos] !== ',') values.push(unquote(tokens[pos]));
        pos++;
      }
      pos++;
    } else values = [unquote(tokens[pos++] ?? '')];
    values = values.map(unquote);

    if (name === 'id') {
      // src/filter_result_iterator.cpp: ids are looked up exactly (case-sensitive), no tokenizing.
      if (op !== '=' && op !== '!=') throw new HttpFailure(400, 'Only `=` and `!=` are supported for the `id` field.');
      const ids = new Set(values);
      return op === '=' ? (doc) => ids.has(String(doc.id)) : (doc) => !ids.has(String(doc.id));
    }
    const field = types.get(name);
    if (!field) throw new HttpFailure(404, `Could not find a filter field named \`${name}\` in the schema.`);
    if (field.index === false) throw new HttpFailure(400, `Cannot filter on non-indexed field \`${name}\`.`);
    if (field.type === 'string' || field.type === 'string[]') {
      // `:=` on a string is an exact match of the whole value, compared token by token after the
      // same tokenizing as at indexing (src/filter_result_iterator.cpp, exact string filter).
      const wanted = values.map((v) => tokensOf(v, symbols, separators));
      const equalsAny = (value: unknown): boolean => {
        const items = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
        return items.some((item) => wanted.some((w) => sameTokens(tokensOf(String(item), symbols, separators), w)));
      };
      if (op === '=') return (doc) => equalsAny(doc[name]);
      if (op === '!=') return (doc) => !equalsAny(doc[name]);
      throw new HttpFailure(400, `Error with filter field \`${name}\`: Not a numerical field.`);
    }
    if (field.type === 'bool') {
      const bool = values[0] === 'true';
      if (values[0] !== 'true' && values[0] !== 'false') throw new HttpFailure(400, `Value of filter field \`${name}\` must be \`true\` or \`false\`.`);
      if (op === '=') return (doc) => doc[name] === bool;
      if (op === '!=') return (doc) => doc[name] !== bool;
    }
    const numbers = values.map(Number);
    if (numbers.some((n) => !Number.isFinite(n))) throw new HttpFailure(400, `Error with filter field \`${name}\`: Numerical field has an invalid comparator.`);
    const bound = numbers[0];
    const compare = {
      '=': (a: number) => numbers.includes(a),
      '!=': (a: number) => !numbers.includes(a),
      '>=': (a: number) => a >= bound,
      '<=': (a: number) => a <= bound,
      '>': (a: number) => a > bound,
      '<': (a: number) => a < bound,
    }[op]!;
    return (doc) => typeof doc[name] === 'number' && compare(doc[name] as number);
  }

  const predicate = parseOr();
  if (pos !== tokens.length) throw new HttpFailure(400, 'Could not parse the filter query.');
  return predicate;
}

// ---- sort_by --------------------------------------------------------------------------------

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

export function parseSortBy(source: string, collection: FilterContext): Sorter[] {
  const parts = splitTopLevel(source);
  // src/collection.cpp validate_and_standardize_sort_fields: both limits answer 422.
  if (parts.length > 3) throw new HttpFailure(422, 'Only upto 3 sort_by fields can be specified.');
  if (parts.filter((part) => part.startsWith('_eval(')).length > 1) throw new HttpFailure(422, 'Only one sorting eval expression is allowed.');
  return parts.map((part): Sorter => {
    const colon = part.lastIndexOf(':');
    const direction = part.slice(colon + 1).trim().toLowerCase();
    const expression = part.slice(0, colon).trim();
    if (direction !== 'asc' && direction !== 'desc') throw new HttpFailure(400, `Order for field\` ${expression}\` should be either ASC or DESC.`);
    const sign = direction === 'desc' ? -1 : 1;
    if (expression === '_text_match') return (a, b) => sign * (a.score - b.score);
    if (expression.startsWith('_eval(')) {
      const inner = expression.slice('_eval('.length, -1).trim();
      let score: (doc: Doc) => number;
      if (inner.startsWith('[')) {
        // src/collection_manager.cpp parse_multi_eval: `_eval([ (<expr>):<int score>, ... ])`;
        // src/index.cpp: a document scores the score of the FIRST expression it satisfies, else 0.
        const items = splitTopLevel(inner.slice(1, -1)).map((item) => {
          const weightAt = item.lastIndexOf(':');
          const expr = item.slice(0, weightAt).trim();
          const weight = item.slice(weightAt + 1).trim();
          if (!expr.startsWith('(') || !expr.endsWith(')') || !/^-?\d+$/.test(weight)) throw new HttpFailure(400, `Sort field \`${part}\` is not valid.`);
          return { predicate: compileEval(expr.slice(1, -1), collection), weight: Number(weight) };
        });
        score = (doc) => items.find((item) => item.predicate(doc))?.weight ?? 0;
      } else {
        const predicate = compileEval(inner, collection);
        score = (doc) => (predicate(doc) ? 1 : 0);
      }
      return (a, b) => sign * (score(a.doc) - score(b.doc));
    }
    const field = collection.fields.find((f) => f.name === expression);
    const numeric = field && ['int32', 'int64', 'float', 'bool'].includes(field.type);
    // Numbers are sortable by default, strings only with `sort: true` (src/field.cpp).
    if (!field || field.index === false || (!numeric && field.sort !== true) || field.sort === false) {
      throw new HttpFailure(404, `Could not find a field named \`${expression}\` in the schema for sorting.`);
    }
    return (a, b) => {
      const x = a.doc[expression];
      const y = b.doc[expression];
      // Missing values sort last whatever the direction (missing_values: last, the default).
      if (x === undefined && y === undefined) return 0;
      if (x === undefined) return 1;
      if (y === undefined) return -1;
      return sign * (Number(x) - Number(y));
    };
  });
}

function compileEval(expression: string, collection: FilterContext): Predicate {
  if (!expression.trim()) throw new HttpFailure(400, 'The eval expression in sort_by is empty.');
  try {
    return compileFilter(expression, collection);
  } catch (error) {
    if (error instanceof HttpFailure) throw new HttpFailure(error.status, 'Error parsing eval expression in sort_by clause.');
    throw error;
  }
}

// ---- text query -----------------------------------------------------------------------------

function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let previous = Array.from({ length: b.length + 1 }, (_v, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length];
}

export interface TextOptions {
  numTypos: number;
  minLen1Typo: number;
  minLen2Typo: number;
  prefix: boolean;
  dropTokensThreshold: number;
  typoTokensThreshold: number;
}

/**
 * Typesense's defaults (src/collection.cpp collection_search_args_t::init): num_typos 2 (a word of
 * 4+ letters may have 1 typo, 7+ letters 2), prefix true (the last word may be a prefix),
 * drop_tokens_threshold 1 and typo_tokens_threshold 1 (drop words from the right, and try typos,
 * only while fewer results than that were found).
 */
export function textOptions(params: Record<string, unknown>): TextOptions {
  const number = (key: string, fallback: number) => (params[key] === undefined ? fallback : Number(params[key]));
  return {
    numTypos: number('num_typos', 2),
    minLen1Typo: number('min_len_1typo', 4),
    minLen2Typo: number('min_len_2typo', 7),
    prefix: params.prefix === undefined ? true : String(params.prefix) === 'true',
    dropTokensThreshold: number('drop_tokens_threshold', 1),
    typoTokensThreshold: number('typo_tokens_threshold', 1),
  };
}

/** Documents whose query_by fields hold every query word (exact, then typos, then prefixes), with a score. */
export function textMatch(
  entries: { doc: Doc; seq: number }[],
  q: string,
  fields: string[],
  weights: number[],
  options: TextOptions,
  schema: Record<string, unknown>,
): { doc: Doc; seq: number; score: number }[] {
  const symbols = (schema.symbols_to_index as string[] | undefined) ?? [];
  const separators = (schema.token_separators as string[] | undefined) ?? [];
  const all = tokensOf(q, symbols, separators);
  const run = (tokens: string[], typos: boolean) => {
    const found: { doc: Doc; seq: number; score: number }[] = [];
    for (const entry of entries) {
      let score = 0;
      let matched = false;
      fields.forEach((field, i) => {
        const value = entry.doc[field];
        const words = tokensOf(Array.isArray(value) ? value.join(' ') : String(value ?? ''), symbols, separators);
        const matches = (token: string, last: boolean) =>
          words.filter((word) => {
            if (word === token) return true;
            if (last && options.prefix && word.startsWith(token)) return true;
            if (!typos) return false;
            const allowed = Math.min(options.numTypos, token.length >= options.minLen2Typo ? 2 : token.length >= options.minLen1Typo ? 1 : 0);
            return allowed > 0 && editDistance(token, word, allowed) <= allowed;
          }).length;
        const counts = tokens.map((token, t) => matches(token, t === tokens.length - 1));
        if (counts.some((count) => count === 0)) return;
        matched = true;
        const tf = counts.reduce((sum, count) => sum + count, 0);
        score += weights[i] * (1000 + Math.round((100 * tf) / Math.sqrt(words.length)));
      });
      if (matched) found.push({ ...entry, score });
    }
    return found;
  };
  let tokens = all;
  for (;;) {
    let found = run(tokens, false);
    if (found.length < options.typoTokensThreshold && options.numTypos > 0) found = run(tokens, true);
    if (found.length >= options.dropTokensThreshold || tokens.length <= 1) return found;
    tokens = tokens.slice(0, -1); // drop_tokens_mode right_to_left (the default)
  }
}

// ---- the node -------------------------------------------------------------------------------

const FIELD_TYPES = ['string', 'string[]', 'bool', 'bool[]', 'int32', 'int32[]', 'int64', 'int64[]', 'float', 'float[]', 'auto', 'string*'];

export class TypesenseNodeState {
  readonly collections = new Map<string, Collection>();
  readonly aliases = new Map<string, string>();
  readonly keys = new Map<string, ApiKey>();
  private nextKeyId = 0;
  /** How long a search "takes" (to test search_cutoff_ms): hits found after this are cut off. */
  searchDelayMs = 0;

  resolve(name: string): Collection {
    const collection = this.collections.get(this.aliases.get(name) ?? name);
    if (!collection) throw new HttpFailure(404, `Collection not found`);
    return collection;
  }

  /** One request on this node's state; `data` is the raw body. */
  handle(method: string, parts: string[], params: Record<string, string>, data: string): Reply {
    try {
      return this.route(method, parts, params, data);
    } catch (error) {
      if (error instanceof HttpFailure) return { status: error.status, body: { message: error.message } };
      throw error;
    }
  }

  private route(method: string, parts: string[], params: Record<string, string>, data: string): Reply {
    const json = () => {
      try {
        return JSON.parse(data) as Record<string, unknown>;
      } catch {
        throw new HttpFailure(400, 'Bad JSON.');
      }
    };
    const ok = (body: unknown, status = 200): Reply => ({ status, body });
    if (parts[0] === 'multi_search' && method === 'POST') return ok(this.multiSearch(params, json()));
    if (parts[0] === 'keys') return this.keysRoute(method, parts, json);
    if (parts[0] === 'aliases') {
      if (parts.length === 1 && method === 'GET') return ok({ aliases: [...this.aliases].map(([name, collection_name]) => ({ name, collection_name })) });
      if (method === 'PUT') {
        const body = json();
        if (body.collection_name === undefined) throw new HttpFailure(400, 'Parameter `collection_name` is required.');
        // src/collection_manager.cpp upsert_symlink: the target is NOT checked to exist; a name
        // taken by a collection is a 500.
        if (this.collections.has(parts[1])) throw new HttpFailure(500, `Name \`${parts[1]}\` conflicts with an existing collection name.`);
        this.aliases.set(parts[1], String(body.collection_name));
        return ok({ name: parts[1], collection_name: String(body.collection_name) });
      }
      const target = this.aliases.get(parts[1]);
      if (!target) throw new HttpFailure(404, 'Not Found');
      if (method === 'DELETE') this.aliases.delete(parts[1]);
      return ok({ name: parts[1], collection_name: target });
    }
    if (parts[0] !== 'collections') throw new HttpFailure(404, 'Not Found');
    if (parts.length === 1) {
      if (method === 'POST') return ok(this.createCollection(json()), 201);
      return ok([...this.collections.values()].map((c) => this.summary(c)));
    }
    if (parts.length === 2) {
      const collection = this.resolve(parts[1]);
      if (method === 'DELETE') this.collections.delete(collection.name);
      return ok(this.summary(collection));
    }
    const collection = this.resolve(parts[1]);
    if (parts[2] !== 'documents') throw new HttpFailure(404, 'Not Found');
    if (parts.length === 3) {
      if (method === 'POST') return ok(this.upsert(collection, json(), params.action ?? 'create'), 201);
      if (method === 'DELETE') {
        if (!params.filter_by) throw new HttpFailure(400, 'Parameter `filter_by` must be provided.');
        const matches = compileFilter(params.filter_by, collection);
        let deleted = 0;
        for (const [id, entry] of collection.docs) {
          if (matches(entry.doc)) {
            collection.docs.delete(id);
            deleted++;
          }
        }
        return ok({ num_deleted: deleted });
      }
    }
    if (parts[3] === 'import' && method === 'POST') {
      const lines = data
        .split('\n')
        .filter((line) => line.trim())
        .map((line) => {
          try {
            this.upsert(collection, JSON.parse(line), params.action ?? 'create');
            return JSON.stringify({ success: true });
          } catch (error) {
            if (error instanceof SyntaxError) return JSON.stringify({ success: false, code: 400, error: 'Bad JSON.', document: line });
            if (!(error instanceof HttpFailure)) throw error;
            return JSON.stringify({ success: false, code: error.status, error: error.message, document: line });
          }
        });
      return { status: 200, body: lines.join('\n'), text: true };
    }
    if (parts[3] === 'export') return { status: 200, body: [...collection.docs.values()].map((entry) => JSON.stringify(entry.doc)).join('\n'), text: true };
    if (parts[3] === 'search') return ok(this.search(collection, params));
    const entry = collection.docs.get(parts[3]);
    if (!entry) throw new HttpFailure(404, `Could not find a document with id: ${parts[3]}`);
    if (method === 'DELETE') collection.docs.delete(parts[3]);
    return ok(entry.doc);
  }

  private keysRoute(method: string, parts: string[], json: () => Record<string, unknown>): Reply {
    const shown = (key: ApiKey) => ({ id: key.id, description: key.description, actions: key.actions, collections: key.collections, expires_at: key.expires_at, autodelete: false, value_prefix: key.value.slice(0, 4) });
    if (method === 'POST' && parts.length === 1) {
      const body = json();
      // src/auth_manager.cpp api_key_t::validate and create_key: actions, collections and
      // description are required; a given `value` is used as the key (src/core_api.cpp
      // post_create_key); a value already in use (or the bootstrap key) is a 409.
      for (const field of ['actions', 'collections']) if (!Array.isArray(body[field])) throw new HttpFailure(400, `Wrong format for \`${field}\`. It should be an array of string.`);
      if (typeof body.description !== 'string') throw new HttpFailure(400, 'Key description is missing.');
      if (body.value !== undefined && typeof body.value !== 'string') throw new HttpFailure(400, 'Key value must be a string.');
      const value = (body.value as string | undefined) ?? Math.random().toString(36).slice(2).padEnd(32, 'x');
      if (this.keys.has(value)) throw new HttpFailure(409, 'API key generation conflict.');
      const key: ApiKey = { id: this.nextKeyId++, value, description: body.description, actions: body.actions as string[], collections: body.collections as string[], expires_at: Number(body.expires_at ?? 64723363199) };
      this.keys.set(value, key);
      return { status: 201, body: { ...shown(key), value } };
    }
    if (method === 'GET' && parts.length === 1) return { status: 200, body: { keys: [...this.keys.values()].map(shown) } };
    const key = [...this.keys.values()].find((k) => String(k.id) === parts[1]);
    if (!key) throw new HttpFailure(404, 'Could not find api key.');
    if (method === 'DELETE') {
      this.keys.delete(key.value);
      return { status: 200, body: { id: key.id } };
    }
    return { status: 200, body: shown(key) };
  }

  private summary(collection: Collection): Record<string, unknown> {
    return { ...collection.schema, num_documents: collection.docs.size };
  }

  private createCollection(schema: Record<string, unknown>): unknown {
    const name = String(schema.name);
    if (this.collections.has(name)) throw new HttpFailure(409, `A collection with name \`${name}\` already exists.`);
    const fields = ((schema.fields as Field[]) ?? []).map((field) => ({ ...field }));
    for (const field of fields) {
      if (!FIELD_TYPES.includes(field.type)) throw new HttpFailure(400, `Field \`${field.name}\` has an invalid data type \`${field.type}\`, see docs for supported data types.`);
      if (field.index === false && !field.optional) throw new HttpFailure(400, `Field \`${field.name}\` must be optional since it is marked as non-indexable.`);
    }
    const stored = {
      name,
      fields: fields.map((field) => ({ facet: false, optional: false, index: true, sort: ['int32', 'int64', 'float', 'bool'].includes(field.type), infix: false, locale: '', stem: false, ...field })),
      default_sorting_field: '',
      enable_nested_fields: schema.enable_nested_fields ?? false,
      token_separators: schema.token_separators ?? [],
      symbols_to_index: schema.symbols_to_index ?? [],
      created_at: Math.floor(Date.now() / 1000),
    };
    this.collections.set(name, { name, fields: stored.fields, docs: new Map(), schema: stored, nextSeq: 0 });
    return { ...stored, num_documents: 0 };
  }

  private upsert(collection: Collection, doc: Record<string, unknown>, action: string): unknown {
    if (!['create', 'upsert', 'update', 'emplace'].includes(action)) throw new HttpFailure(400, 'The `action` parameter is invalid.');
    if (action !== 'upsert' && action !== 'create') throw new HttpFailure(400, `the stand-in emulates action=create|upsert only, got ${action}`);
    if (doc.id === '') throw new HttpFailure(400, 'The `id` should not be empty.');
    if (typeof doc.id !== 'string') throw new HttpFailure(400, "Document's `id` field should be a string.");
    const previous = collection.docs.get(doc.id);
    // src/collection.cpp to_doc: create of an existing id is a 409; an upsert keeps the seq_id.
    if (action === 'create' && previous) throw new HttpFailure(409, `A document with id ${doc.id} already exists.`);
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
      if (!ok) throw new HttpFailure(400, `Field \`${field.name}\` must be ${field.type === 'string[]' ? 'an array of' : 'a'} ${field.type.replace('[]', '')}.`);
    }
    collection.docs.set(doc.id, { doc: doc as Doc, seq: previous?.seq ?? collection.nextSeq++ });
    return doc;
  }

  private multiSearch(params: Record<string, string>, body: Record<string, unknown>): unknown {
    if (!Array.isArray(body.searches)) throw new HttpFailure(400, 'Missing `searches` array.');
    // src/core_api.cpp post_multi_search: at most limit_multi_searches (default 50) searches.
    const limit = params.limit_multi_searches !== undefined ? Number(params.limit_multi_searches) : 50;
    if (body.searches.length > limit) throw new HttpFailure(400, 'Number of multi searches exceeds `limit_multi_searches` parameter.');
    return {
      results: (body.searches as Record<string, unknown>[]).map((search) => {
        try {
          const merged: Record<string, unknown> = { ...params, ...search };
          if (merged.collection === undefined) throw new HttpFailure(400, '`collection` is required.');
          return this.search(this.resolve(String(merged.collection)), merged);
        } catch (error) {
          // Per-search errors sit inside the 200 answer as {code, error}.
          if (error instanceof HttpFailure) return { code: error.status, error: error.message };
          throw error;
        }
      }),
    };
  }

  private search(collection: Collection, params: Record<string, unknown>): unknown {
    if (params.q === undefined) throw new HttpFailure(400, 'Parameter `q` is required.');
    const q = String(params.q);
    const filter = params.filter_by ? compileFilter(String(params.filter_by), collection) : () => true;
    const candidates = [...collection.docs.values()].filter((entry) => filter(entry.doc));
    let scored: { doc: Doc; seq: number; score: number }[];
    if (q === '*') {
      scored = candidates.map((entry) => ({ ...entry, score: 0 }));
    } else {
      if (!params.query_by) throw new HttpFailure(400, 'No search fields specified for the query.');
      const fields = String(params.query_by).split(',').map((f) => f.trim());
      for (const name of fields) {
        const field = collection.fields.find((f) => f.name === name);
        if (!field || field.index === false) throw new HttpFailure(404, `Could not find a field named \`${name}\` in the schema.`);
        if (field.type !== 'string' && field.type !== 'string[]') throw new HttpFailure(400, `Field \`${name}\` should be a string or a string array.`);
      }
      const weights = params.query_by_weights ? String(params.query_by_weights).split(',').map(Number) : fields.map(() => 1);
      scored = textMatch(candidates, q, fields, weights, textOptions(params), collection.schema);
    }
    // src/collection.cpp validate_and_standardize_sort_fields: without sort_by a text query sorts by
    // _text_match then seq_id desc; a wildcard by seq_id desc; and every sort breaks ties by the
    // seq_id, newest first (include/topster.h is_greater: scores[0..2], then key).
    const sorters = parseSortBy(String(params.sort_by ?? (q === '*' ? '' : '_text_match:desc')), collection);
    scored.sort((a, b) => {
      for (const sorter of sorters) {
        const order = sorter(a, b);
        if (order) return order;
      }
      return b.seq - a.seq;
    });
    // `limit` is another name of per_page; `page` wins over `offset` when both are given
    // (src/collection.cpp search: offset only when page is 0/unset).
    const perPage = params.limit !== undefined ? Number(params.limit) : params.per_page !== undefined ? Number(params.per_page) : 10;
    if (perPage > 250) throw new HttpFailure(422, 'Only upto 250 hits can be fetched per page.');
    const page = params.page !== undefined ? Number(params.page) : 0;
    const offset = page === 0 && params.offset !== undefined ? Number(params.offset) : perPage * (Math.max(1, page) - 1);
    let cutoff = false;
    const budget = params.search_cutoff_ms !== undefined ? Number(params.search_cutoff_ms) : 30_000;
    if (this.searchDelayMs > budget) {
      // A search cut short: what was found so far (here: a share proportional to the time), flagged.
      scored = scored.slice(0, Math.floor((scored.length * budget) / this.searchDelayMs));
      cutoff = true;
    }
    const include = params.include_fields ? new Set(String(params.include_fields).split(',').map((f) => f.trim())) : null;
    const exclude = new Set(String(params.exclude_fields ?? '').split(',').map((f) => f.trim()).filter(Boolean));
    const project = (doc: Doc) => Object.fromEntries(Object.entries(doc).filter(([key]) => (include ? include.has(key) : !exclude.has(key))));
    const response: Record<string, unknown> = {
      facet_counts: [],
      found: scored.length,
      out_of: collection.docs.size,
      page: page === 0 && params.offset !== undefined ? Math.floor(offset / Math.max(1, perPage)) + 1 : Math.max(1, page),
      request_params: { collection_name: collection.name, per_page: perPage, q },
      search_cutoff: cutoff,
      search_time_ms: 0,
      hits: scored.slice(offset, offset + perPage).map((entry) => ({ document: project(entry.doc), highlights: [], text_match: entry.score })),
    };
    if (params.facet_by) {
      const name = String(params.facet_by);
      const field = collection.fields.find((f) => f.name === name);
      if (!field || !field.facet) throw new HttpFailure(404, `Could not find a facet field named \`${name}\` in the schema.`);
      const counts = new Map<string, number>();
      for (const entry of scored) {
        const value = entry.doc[name];
        for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) counts.set(String(v), (counts.get(String(v)) ?? 0) + 1);
      }
      const sorted = [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(params.max_facet_values ?? 10));
      response.facet_counts = [{ field_name: name, sampled: false, counts: sorted.map(([value, count]) => ({ value, count, highlighted: value })), stats: { total_values: counts.size } }];
    }
    return response;
  }
}
