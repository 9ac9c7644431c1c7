// Social excerpts (spec 4.3 rule 3): the social endpoints never hand out a whole post. An excerpt is
// at most 180 characters plus an ellipsis, and a short post is output to at most one half of its
// length. "Characters" is read in the strictest way a client might count them: UTF-16 code units,
// code points and grapheme clusters must all stay within the limits, so an emoji-heavy post cannot
// slip past a client that counts differently from us. For short posts the ellipsis itself counts
// towards the half, so even `snippet.length <= text.length / 2` holds.

export const EXCERPT_MAX_CHARS = 180;
export const ELLIPSIS = '…';

const graphemeSegmenter = new Intl.Segmenter('de', { granularity: 'grapheme' });
const wordSegmenter = new Intl.Segmenter('de', { granularity: 'word' });

// How far before a matched word an excerpt may start when it has to start later than the post.
const LEAD_IN = 40;

interface Size {
  units: number;
  points: number;
  graphemes: number;
}

/** Measures of a text at each grapheme boundary, so that any window can be measured in O(1). */
class Measure {
  readonly boundaries: number[] = [];
  private readonly graphemeAt = new Map<number, number>();
  private readonly pointsAt = new Map<number, number>();

  constructor(text: string) {
    let points = 0;
    let previous = 0;
    for (const { index } of graphemeSegmenter.segment(text)) {
      points += countPoints(text.slice(previous, index));
      this.add(index, points);
      previous = index;
    }
    if (text.length > 0) this.add(text.length, points + countPoints(text.slice(previous)));
  }

  private add(index: number, points: number): void {
    if (this.graphemeAt.has(index)) return;
    this.graphemeAt.set(index, this.boundaries.length);
    this.pointsAt.set(index, points);
    this.boundaries.push(index);
  }

  isBoundary(index: number): boolean {
    return this.graphemeAt.has(index);
  }

  size(start: number, end: number): Size {
    return {
      units: end - start,
      points: this.pointsAt.get(end)! - this.pointsAt.get(start)!,
      graphemes: this.graphemeAt.get(end)! - this.graphemeAt.get(start)!,
    };
  }
}

function countPoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

function fits(size: Size, limit: Size, extra: number): boolean {
  return size.units + extra <= limit.units && size.points + extra <= limit.points && size.graphemes + extra <= limit.graphemes;
}

/** Word ends followed by whitespace (best cuts), then any other word boundary (inside URLs, at hyphens). */
function cutCandidates(text: string, measure: Measure): { spaces: number[]; words: number[] } {
  const spaces: number[] = [];
  const words: number[] = [];
  for (const { index, segment } of wordSegmenter.segment(text)) {
    const end = index + segment.length;
    if (!measure.isBoundary(end) || /^\s+$/u.test(segment)) continue;
    if (end === text.length || /\s/u.test(text[end])) spaces.push(end);
    else words.push(end);
  }
  return { spaces, words };
}

/** Where a window that shows the matched word at `focus` may start: a word start shortly before it. */
function startBefore(text: string, focus: number, measure: Measure): number {
  let start = 0;
  for (const { index, segment } of wordSegmenter.segment(text)) {
    if (index > focus) break;
    if (/^\s+$/u.test(segment) || !measure.isBoundary(index)) continue;
    const previous = index === 0 ? ' ' : text[index - 1];
    if (/\s/u.test(previous) && focus - index <= LEAD_IN) return index;
    start = index;
  }
  return start;
}

function trimEnd(text: string): string {
  return text.replace(/[\s,;:\-–—(\[{„“"'‚‘/]+$/u, '');
}

export interface ExcerptRange {
  /** The whitespace-normalised text the range refers to. */
  text: string;
  start: number;
  end: number;
  leadingEllipsis: boolean;
  trailingEllipsis: boolean;
}

/**
 * Which part of a post's plain text (HTML already stripped) the excerpt shows, optionally around the
 * word at `focus` (a UTF-16 index, e.g. the first matched query word). Cuts at word boundaries and
 * never inside a grapheme; a word longer than half the window is cut between graphemes.
 */
export function excerptRange(rawText: string, options: { focus?: number; maxChars?: number } = {}): ExcerptRange | null {
  const text = rawText.replace(/\s+/gu, ' ').trim();
  if (!text) return null;
  const max = options.maxChars ?? EXCERPT_MAX_CHARS;
  const measure = new Measure(text);
  const whole = measure.size(0, text.length);
  // One ellipsis is always reserved (the half rule means a post is never shown whole) and counts
  // towards the half of a short post; a leading one, when the window moves to a match, counts too.
  const limit: Size = {
    units: Math.min(max, Math.floor(whole.units / 2) - 1),
    points: Math.min(max, Math.floor(whole.points / 2) - 1),
    graphemes: Math.min(max, Math.floor(whole.graphemes / 2) - 1),
  };
  if (limit.units < 1 || limit.points < 1 || limit.graphemes < 1) return null;

  const candidates = cutCandidates(text, measure);
  const allWords = [...candidates.spaces, ...candidates.words].sort((a, b) => a - b);
  const cut = (start: number, lead: number): number | null => {
    const best = (list: number[]) => list.filter((end) => end > start && fits(measure.size(start, end), limit, lead)).at(-1) ?? null;
    const covers = (end: number | null, other: number | null) => end !== null && (other === null || (end - start) * 2 >= other - start);
    const atSpace = best(candidates.spaces);
    const atWord = best(allWords);
    const atGrapheme = best(measure.boundaries);
    // A better kind of cut wins unless it throws away most of the window (a URL, a run of emoji).
    if (covers(atSpace, atGrapheme) && covers(atSpace, atWord)) return atSpace;
    if (covers(atWord, atGrapheme)) return atWord;
    return atGrapheme;
  };

  let start = 0;
  let end = cut(0, 0);
  if (options.focus !== undefined && options.focus > 0 && end !== null && options.focus >= end) {
    const shifted = startBefore(text, options.focus, measure);
    const shiftedEnd = shifted > 0 ? cut(shifted, 1) : null;
    if (shiftedEnd !== null && shiftedEnd > options.focus) {
      start = shifted;
      end = shiftedEnd;
    }
  }
  if (end === null) return null;
  const shown = text.slice(start, end);
  end = start + (trimEnd(shown) || shown.trimEnd()).length;
  return { text, start, end, leadingEllipsis: start > 0, trailingEllipsis: end < text.length };
}

/** The excerpt itself: the range's text with its ellipses; "" when the post is too short to halve. */
export function makeExcerpt(rawText: string, options: { focus?: number; maxChars?: number } = {}): string {
  const range = excerptRange(rawText, options);
  if (!range) return '';
  return `${range.leadingEllipsis ? ELLIPSIS : ''}${range.text.slice(range.start, range.end)}${range.trailingEllipsis ? ELLIPSIS : ''}`;
}
