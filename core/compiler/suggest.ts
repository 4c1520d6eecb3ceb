// "Did you mean": the known name closest to a misspelt one, by edit distance.

/** Levenshtein distance with adjacent transpositions counted as one edit (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const columns = b.length + 1;
  const table: number[][] = Array.from({ length: rows }, (_, row) => Array.from({ length: columns }, (_, column) => (row === 0 ? column : column === 0 ? row : 0)));
  for (let row = 1; row < rows; row += 1) {
    for (let column = 1; column < columns; column += 1) {
      const cost = a[row - 1] === b[column - 1] ? 0 : 1;
      let best = Math.min(table[row - 1]![column]! + 1, table[row]![column - 1]! + 1, table[row - 1]![column - 1]! + cost);
      if (row > 1 && column > 1 && a[row - 1] === b[column - 2] && a[row - 2] === b[column - 1]) best = Math.min(best, table[row - 2]![column - 2]! + 1);
      table[row]![column] = best;
    }
  }
  return table[a.length]![b.length]!;
}

/** The candidate closest to `word`, when it is close enough to be a likely typo (case is ignored). */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const lower = word.toLowerCase();
  // Up to one edit per three characters, at least one: "neds" → "needs", but "x" suggests nothing unrelated.
  const allowed = Math.max(1, Math.floor(word.length / 3));
  let best: { name: string; distance: number } | undefined;
  for (const candidate of candidates) {
    if (candidate.length > 64 || word.length > 64) continue;
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance <= allowed && (!best || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name;
}

/** `a, b, c` — at most `limit` names, then how many more. */
export function listNames(names: readonly string[], limit = 10): string {
  if (names.length === 0) return '(none)';
  const shown = names.slice(0, limit).join(', ');
  return names.length > limit ? `${shown} and ${names.length - limit} more` : shown;
}
