/**
 * Splits a command line the way a POSIX shell splits words: whitespace separates, single quotes keep
 * everything literal, double quotes keep spaces (backslash escapes `"`, `\`, `$`, `` ` ``), a backslash
 * outside quotes escapes the next character. No expansion, no operators: Hotpath never runs a shell,
 * so `a | b` is passed as three arguments and the user sees the program fail, not something else run.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote === "'") {
      if (c === "'") quote = null;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1])) word += line[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new Error(`Unclosed ${quote === '"' ? 'double' : 'single'} quote in the command "${line}".`);
  if (inWord) words.push(word);
  return words;
}

/** The inverse for display: quotes only the words that need it. */
export function joinCommandLine(words: readonly string[]): string {
  return words.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ');
}
