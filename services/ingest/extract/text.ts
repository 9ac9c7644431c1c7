// Plain-text clean-up shared by the office and PDF extractors.

// Conjunctions after a line-end hyphen mean an elided compound ("Land-\nund Forstwirtschaft"), not a
// word broken across lines.
const KEEP_AFTER_HYPHEN = /^(und|oder|bis|sowie|bzw|beziehungsweise|als|noch)\b/;

/** Joins words hyphenated at line ends ("verteu-\nfelten" -> "verteufelten"), so they can be found. */
export function dehyphenate(text: string): string {
  return text.replace(/(\p{L})-\n(\p{Ll}+)/gu, (whole, before: string, after: string) =>
    KEEP_AFTER_HYPHEN.test(after) ? whole : `${before}${after}`,
  );
}

/** One paragraph per line, spaces collapsed, no empty lines, no control characters. */
export function normaliseText(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, ' ').split('\n');
  const kept: string[] = [];
  for (const line of lines) {
    const t = line.replace(/[ \t\u00a0\u200b]+/g, ' ').trim();
    if (t) kept.push(t);
  }
  return kept.join('\n');
}
