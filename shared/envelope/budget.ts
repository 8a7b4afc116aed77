// Script-aware size estimate. A tokenizer packs about four ASCII characters into a token but spends about
// one token per CJK, Arabic or Cyrillic character, so a raw character count would let non-Latin payloads
// through at roughly four times the real budget.

/**
 * UTF-8 length where the runtime has Node's Buffer: a native count about four times faster than any
 * regex test, and a text is plain ASCII exactly when it is as long in UTF-8 bytes as in code units.
 */
const utf8Length: ((text: string) => number) | undefined = (
  globalThis as { Buffer?: { byteLength(text: string): number } }
).Buffer?.byteLength;
const NON_ASCII = /[\u0080-\uffff]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: every ASCII character, control ones included
const ASCII_RUNS = /[\u0000-\u007f]+/g;

/** ASCII and non-ASCII UTF-16 code units of a text: the two quantities every size below derives from. */
export interface CharCounts {
  ascii: number;
  nonAscii: number;
}

export function countChars(text: string): CharCounts {
  // Both paths stay in native regex code: a test that stops at the first non-ASCII character (pure ASCII,
  // the common case, is one pass), else deleting the ASCII runs and counting what is left, several times
  // faster than a charCodeAt loop over a large text.
  if (utf8Length ? utf8Length(text) === text.length : !NON_ASCII.test(text))
    return { ascii: text.length, nonAscii: 0 };
  const nonAscii = text.replace(ASCII_RUNS, '').length;
  return { ascii: text.length - nonAscii, nonAscii };
}

export function tokensOf(ascii: number, nonAscii: number): number {
  return Math.ceil(ascii / 4) + nonAscii;
}

/** ASCII counts about 4 characters per token; every non-ASCII UTF-16 code unit counts as one token. */
export function estimateTokens(text: string): number {
  const { ascii, nonAscii } = countChars(text);
  return tokensOf(ascii, nonAscii);
}

/** The size the budget compares: identical to the length for ASCII, four per token for everything else. */
export function budgetSize(text: string): number {
  return Math.max(text.length, estimateTokens(text) * 4);
}

export function digitsOf(n: number): number {
  return String(n).length;
}

/**
 * The envelope is measured with `tokens_estimated: 0` in place; the real number's digits change the very
 * size it describes. Starting from one digit, the digit count can only grow and is bounded, so this
 * reaches the fixed point in two or three steps without serialising again.
 * @param ascii ASCII code units of the envelope text serialised with `tokens_estimated: 0`.
 */
export function settleTokens(
  ascii: number,
  nonAscii: number,
): { tokens: number; length: number; size: number } {
  let digits = 1;
  for (;;) {
    const tokens = tokensOf(ascii - 1 + digits, nonAscii);
    const next = digitsOf(tokens);
    if (next <= digits) {
      const length = ascii - 1 + digits + nonAscii;
      return { tokens, length, size: Math.max(length, tokens * 4) };
    }
    digits = next;
  }
}
