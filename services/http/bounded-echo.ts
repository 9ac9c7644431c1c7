// A 422 echoes the offending `input` (FastAPI's shape), but an attacker chooses that input: a body of
// 30,000 nested arrays overflowed the stack of JSON.stringify, and a long string was sent back whole.
// The echo is therefore a bounded copy: nesting, list and object sizes and string lengths are cut,
// iteratively, so no input can make it deep or large.

const MAX_DEPTH = 4;
const MAX_ITEMS = 20;
const MAX_STRING = 1000;
const ELLIPSIS = '…';

function cutString(value: string): string {
  return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}${ELLIPSIS}` : value;
}

function isContainer(value: unknown): value is object {
  return value !== null && typeof value === 'object';
}

/** A copy of `value` no deeper than 4 levels, with at most 20 items per list or object and strings of at most 1000 characters. */
export function boundedEcho(value: unknown): unknown {
  if (typeof value === 'string') return cutString(value);
  if (!isContainer(value)) return value;
  const root: unknown[] | Record<string, unknown> = Array.isArray(value) ? [] : {};
  // Work list of (source, copy, depth): no recursion, so no stack to overflow.
  const work: [object, unknown[] | Record<string, unknown>, number][] = [[value, root, 1]];
  while (work.length) {
    const [source, copy, depth] = work.pop()!;
    const entries: [string | number, unknown][] = Array.isArray(source)
      ? source.slice(0, MAX_ITEMS).map((item, index) => [index, item])
      : Object.entries(source).slice(0, MAX_ITEMS);
    for (const [key, child] of entries) {
      let echoed: unknown;
      if (typeof child === 'string') echoed = cutString(child);
      else if (!isContainer(child)) echoed = child;
      else if (depth >= MAX_DEPTH) echoed = Array.isArray(child) ? [] : {};
      else {
        echoed = Array.isArray(child) ? [] : {};
        work.push([child, echoed as unknown[] | Record<string, unknown>, depth + 1]);
      }
      if (Array.isArray(copy)) copy[key as number] = echoed;
      else copy[cutString(String(key))] = echoed;
    }
  }
  return root;
}
