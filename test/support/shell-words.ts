// How the documentation tests read a documented command: shell words, without running a shell.

/** Shell words with quotes and backslashes; an unquoted `#` starts a comment. Pipes and redirections are refused. */
export function shellWords(text: string): { words: string[]; comment: string } {
  const words: string[] = [];
  let current: string | undefined;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index]!;
    if (/\s/.test(char)) {
      if (current !== undefined) words.push(current);
      current = undefined;
    } else if (char === '#' && current === undefined) {
      return { words, comment: text.slice(index + 1).trim() };
    } else if (char === "'") {
      const end = text.indexOf("'", index + 1);
      if (end < 0) throw new Error(`unclosed ' in: ${text}`);
      current = (current ?? '') + text.slice(index + 1, end);
      index = end;
    } else if (char === '"') {
      let value = '';
      for (index += 1; index < text.length && text[index] !== '"'; index += 1) {
        if (text[index] === '\\' && (text[index + 1] === '"' || text[index + 1] === '\\')) index += 1;
        value += text[index];
      }
      if (index >= text.length) throw new Error(`unclosed " in: ${text}`);
      current = (current ?? '') + value;
    } else if (char === '\\') {
      current = (current ?? '') + (text[index + 1] ?? '');
      index += 1;
    } else if ('|&;<>`$'.includes(char)) {
      throw new Error(`documented commands are run without a shell; "${char}" is not supported in: ${text}`);
    } else {
      current = (current ?? '') + char;
    }
  }
  if (current !== undefined) words.push(current);
  return { words, comment: '' };
}
