/**
 * Finds the bracket that closes a given one in JavaScript/TypeScript text, skipping strings, template
 * literals (with their `${…}` holes), comments and regular expressions. This is what lets attribution
 * hand the parser one function's text instead of its whole file: the function's extent comes from here,
 * its meaning from the parser. When the text is something this does not follow (JSX text, a stray
 * quote), it answers -1 and the caller parses the whole file instead.
 */

const OPEN = new Map([[40, 41], [91, 93], [123, 125]]); // ( ) [ ] { }
const CLOSE = new Set([41, 93, 125]);

/** Keywords after which `/` starts a regular expression, not a division. */
const REGEX_AFTER_WORD = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await']);

function isIdentChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 36 || c > 127;
}

/** Offset just past the comment or whitespace run at `i`, or `i` when there is none. */
export function skipTrivia(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13 || c === 11 || c === 12 || c === 0xa0 || c === 0xfeff || c === 0x2028 || c === 0x2029) { i++; continue; }
    if (c === 47 && text.charCodeAt(i + 1) === 47) { while (i < text.length && !isLineBreak(text.charCodeAt(i))) i++; continue; }
    if (c === 47 && text.charCodeAt(i + 1) === 42) { const end = text.indexOf('*/', i + 2); if (end < 0) return text.length; i = end + 2; continue; }
    return i;
  }
}

function isLineBreak(c: number): boolean {
  return c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
}

/** Offset of the bracket closing the one at `open` (`(`, `[` or `{`), or -1. */
export function matchBracket(text: string, open: number): number {
  const first = text.charCodeAt(open);
  if (!OPEN.has(first)) return -1;
  // Expected closers, innermost last; 0 marks a template literal's `${` hole.
  const stack: number[] = [OPEN.get(first)!];
  let i = open + 1;
  // What came before, to tell a regex from a division: true after an operator or an opening bracket.
  let regexAllowed = true;
  let lastWordStart = -1;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 47) { // '/'
      const next = text.charCodeAt(i + 1);
      if (next === 47 || next === 42) { i = skipTrivia(text, i); continue; }
      const word = lastWordStart >= 0 ? text.slice(lastWordStart, i).trim() : '';
      if (regexAllowed || REGEX_AFTER_WORD.has(word)) {
        const end = skipRegex(text, i);
        if (end < 0) return -1;
        i = end;
        regexAllowed = false;
        lastWordStart = -1;
        continue;
      }
      i++;
      regexAllowed = true;
      lastWordStart = -1;
      continue;
    }
    if (c === 39 || c === 34) { // ' "
      const end = skipString(text, i, c);
      if (end < 0) return -1;
      i = end;
      regexAllowed = false;
      lastWordStart = -1;
      continue;
    }
    if (c === 96) { // `
      const end = skipTemplate(text, i + 1, stack);
      if (end < 0) return -1;
      i = end;
      regexAllowed = false;
      lastWordStart = -1;
      continue;
    }
    if (OPEN.has(c)) {
      stack.push(OPEN.get(c)!);
      i++;
      regexAllowed = true;
      lastWordStart = -1;
      continue;
    }
    if (CLOSE.has(c)) {
      const expected = stack.pop();
      if (expected === 0 && c === 125) {
        // The end of a template hole: continue the template literal.
        const end = skipTemplate(text, i + 1, stack);
        if (end < 0) return -1;
        i = end;
        regexAllowed = false;
        continue;
      }
      if (expected !== c) return -1;
      if (stack.length === 0) return i;
      i++;
      regexAllowed = c === 125; // after `}` a regex may start a statement; after `)` and `]` it is a division
      lastWordStart = -1;
      continue;
    }
    if (isIdentChar(c)) {
      const start = i;
      while (i < n && isIdentChar(text.charCodeAt(i))) i++;
      lastWordStart = start;
      regexAllowed = false;
      continue;
    }
    if (c === 32 || c === 9 || isLineBreak(c) || c === 11 || c === 12 || c === 0xa0 || c === 0xfeff) { i++; continue; }
    // Any other punctuation: an operator or separator, after which a regex may follow (not after `.`).
    regexAllowed = c !== 46;
    lastWordStart = -1;
    i++;
  }
  return -1;
}

function skipString(text: string, i: number, quote: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 92) { j++; continue; }
    if (c === quote) return j + 1;
    if (c === 10 || c === 13) return -1;
  }
  return -1;
}

/** From inside a template literal: past its closing backtick, or into a `${` hole (pushing 0). */
function skipTemplate(text: string, i: number, stack: number[]): number {
  for (let j = i; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 92) { j++; continue; }
    if (c === 96) return j + 1;
    if (c === 36 && text.charCodeAt(j + 1) === 123) {
      stack.push(0);
      return j + 2;
    }
  }
  return -1;
}

function skipRegex(text: string, i: number): number {
  let inClass = false;
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 92) { j++; continue; }
    if (isLineBreak(c)) return -1;
    if (c === 91) inClass = true;
    else if (c === 93) inClass = false;
    else if (c === 47 && !inClass) {
      let k = j + 1;
      while (k < text.length && isIdentChar(text.charCodeAt(k))) k++;
      return k;
    }
  }
  return -1;
}
