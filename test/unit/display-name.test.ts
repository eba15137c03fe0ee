import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { displayNameProblem } from '../../shared/schemas/display-name';
import { validName } from '../support/order-settings-fixtures';

describe('display names', () => {
  it.each([
    ['letters of many scripts', 'Ελληνικά русский 中文 العربية हिन्दी'],
    ['combining marks', 'Cafe\u0301'],
    ['digits and punctuation', 'Q3 — “POS” orders (EU), #2!'],
    ['symbols', '€ $ £ ± ©'],
    ['emoji with skin tone, ZWJ, keycap and flag sequences', '👍🏽 👩‍💻 1️⃣ 🇯🇵 🏴󠁧󠁢󠁳󠁣󠁴󠁿'],
  ])('accepts %s', (_, name) => {
    expect(displayNameProblem(name)).toBeUndefined();
  });

  it.each([
    ['a tab', 'a\tb', 'control'],
    ['a newline', 'a\nb', 'control'],
    ['DEL', 'a\u007Fb', 'control'],
    ['a zero-width space', 'a\u200Bb', 'zero-width'],
    ['a zero-width joiner between letters', 'a\u200Db', 'zero-width'],
    ['a byte-order mark', '\uFEFFname', 'zero-width'],
    ['a word joiner', 'a\u2060b', 'zero-width'],
    ['a right-to-left override', 'abc\u202Etxt.exe', 'bidirectional'],
    ['a left-to-right mark', 'a\u200Eb', 'bidirectional'],
    ['a right-to-left isolate', 'a\u2067b', 'bidirectional'],
    ['a lone surrogate', 'a\uD800b', 'well-formed'],
    ['a line separator', 'a\u2028b', 'letters'],
    ['a private-use character', 'a\uE000b', 'letters'],
  ])('rejects %s', (_, name, reason) => {
    expect(displayNameProblem(name)).toMatch(new RegExp(reason, 'i'));
  });

  it('counts characters as code points, so emoji count once', () => {
    expect(displayNameProblem('😀'.repeat(100))).toBeUndefined();
    expect(displayNameProblem('😀'.repeat(101))).toMatch(/1 to 100/);
  });

  it('accepts any name built from allowed pieces', () => {
    fc.assert(
      fc.property(validName, (name) => {
        expect(displayNameProblem(name)).toBeUndefined();
      }),
    );
  });

  it('rejects any otherwise valid name with a forbidden character inserted anywhere', () => {
    const forbidden = fc.constantFrom('\u0000', '\u001B', '\u0085', '\u200B', '\u200C', '\u202A', '\u2066', '\u061C', '\uFEFF', '\u2029');
    fc.assert(
      fc.property(validName, forbidden, fc.nat(), (name, bad, at) => {
        const chars = [...name];
        chars.splice(at % (chars.length + 1), 0, bad);
        const candidate = chars.join('');
        fc.pre([...candidate].length <= 100);
        expect(displayNameProblem(candidate)).toBeDefined();
      }),
    );
  });
});
