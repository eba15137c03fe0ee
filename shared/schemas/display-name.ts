import * as z from 'zod/mini';
import './zod-mini';

export const DISPLAY_NAME_MAX_LENGTH = 100;

/**
 * Characters that are invisible or reorder text. They make two names look identical while being
 * different, or spoof how a name renders, so they are never part of a name.
 */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
const ZERO_WIDTH = /[\u200B-\u200D\u2060\uFEFF\u180E]/u;

/**
 * Emoji are built from pieces that, alone, are invisible: a zero-width joiner between two
 * pictographs (👩‍💻) and tag characters after a black flag (🏴󠁧󠁢󠁳󠁣󠁴󠁿). Those sequences are
 * removed before the character check so that emoji are accepted and stray joiners are not.
 */
const EMOJI_ZWJ = /(?<=\p{Extended_Pictographic}[\u{FE0F}\u{1F3FB}-\u{1F3FF}]?)\u200D(?=\p{Extended_Pictographic})/gu;
const EMOJI_TAG_SEQUENCE = /\u{1F3F4}[\u{E0020}-\u{E007E}]+\u{E007F}/gu;

/**
 * What a name may be made of: letters, marks, numbers, punctuation, symbols (emoji among them)
 * and spaces. Everything else is rejected: control and format characters, line and paragraph
 * separators, private-use and unassigned code points, and lone surrogates.
 */
const ALLOWED = /^[\p{L}\p{M}\p{N}\p{P}\p{S}\p{Zs}]*$/u;

export function displayNameProblem(name: string): string | undefined {
  const length = [...name].length;
  if (length < 1 || length > DISPLAY_NAME_MAX_LENGTH) {
    return `Must be 1 to ${DISPLAY_NAME_MAX_LENGTH} characters long`;
  }
  if (/\p{Cc}/u.test(name)) return 'Must not contain control characters';
  if (!name.isWellFormed()) return 'Must be well-formed Unicode (no lone surrogates)';
  const withoutEmojiSequences = name.replace(EMOJI_TAG_SEQUENCE, '\u{1F3F4}').replace(EMOJI_ZWJ, '');
  if (BIDI_CONTROLS.test(withoutEmojiSequences)) return 'Must not contain bidirectional-control characters';
  if (ZERO_WIDTH.test(withoutEmojiSequences)) return 'Must not contain zero-width characters';
  if (!ALLOWED.test(withoutEmojiSequences)) {
    return 'May contain only letters, marks, digits, punctuation, symbols, emoji and spaces';
  }
  return undefined;
}

/**
 * A human-chosen name (exclusion filters, dashboard views). Length counts Unicode code points, so
 * an emoji counts once however JavaScript stores it.
 */
export const displayName = z.string().check(
  z.superRefine((name, ctx) => {
    const problem = displayNameProblem(name);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
);
