// Text from outside (file names, URLs, server answers) printed to a terminal: control characters
// (ANSI escape sequences could move the cursor, recolour, retitle or rewrite earlier lines) and
// bidirectional overrides (which reorder what is shown) are written as visible escapes, \x1b,
// \u202e. Line breaks are escaped too, except in whole messages that are meant to span lines.

const UNSAFE = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_KEEP_LINES = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function escape(char: string): string {
  const code = char.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** One line of untrusted text, safe to print. */
export function printable(text: string): string {
  return text.replace(UNSAFE, escape);
}

/** A message that may span lines (tabs and line breaks kept), safe to print. */
export function printableMessage(text: string): string {
  return text.replace(UNSAFE_KEEP_LINES, escape);
}
