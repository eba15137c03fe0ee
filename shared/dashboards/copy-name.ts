import { DISPLAY_NAME_MAX_LENGTH } from '../schemas/display-name';

const SUFFIX = ' (copy)';
const ELLIPSIS = '…';
// Built on first use: creating a segmenter loads ICU break data, which a cold start should not pay for.
let graphemes: Intl.Segmenter | undefined;

/**
 * The default name of a copy, `"<name> (copy)"`, kept within the name length limit. A long name is
 * cut at a character boundary a reader sees (a grapheme), never inside an emoji sequence, where a
 * dangling joiner would make the name invalid, and the cut is marked with an ellipsis.
 */
export function copyName(name: string): string {
  const length = (text: string) => [...text].length;
  if (length(name) + length(SUFFIX) <= DISPLAY_NAME_MAX_LENGTH) return name + SUFFIX;
  const budget = DISPLAY_NAME_MAX_LENGTH - length(SUFFIX) - length(ELLIPSIS);
  let kept = '';
  for (const { segment } of (graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' })).segment(name)) {
    if (length(kept) + length(segment) > budget) break;
    kept += segment;
  }
  return kept.trimEnd() + ELLIPSIS + SUFFIX;
}
