// Aho–Corasick over UTF-16 code units: every occurrence of every pattern in one left-to-right pass, in time linear
// in the text (plus the matches), whatever the patterns overlap. Redaction runs on every recorded document and on
// up to 16 MiB of process output, so a per-pattern indexOf with a list of overlapping spans is not an option.

const ROOT = 0;
/** Nodes with more children than this are searched by bisection instead of a scan. */
const SCAN_LIMIT = 8;

/** Half-open ranges `[start, end)` of a text, sorted, disjoint and not touching. */
export interface Ranges {
  readonly starts: readonly number[];
  readonly ends: readonly number[];
}

export class PatternMatcher {
  /** Child of the root by code unit (0: none); the root is visited on almost every character. */
  readonly #rootTable = new Int32Array(0x10000);
  // Children of the other nodes, sorted by code unit: node n owns edges [edgeStart[n], edgeStart[n + 1]).
  readonly #edgeStart: Int32Array;
  readonly #edgeUnit: Uint16Array;
  readonly #edgeTarget: Int32Array;
  readonly #fail: Int32Array;
  readonly #depth: Int32Array;
  /** Length of the longest pattern that ends at this node (0: none). */
  readonly #longest: Int32Array;

  constructor(patterns: readonly string[]) {
    // The trie is built from the sorted patterns without any hash map: a pattern shares with the one before it
    // exactly the path of their common prefix, and a node's children come into being in code-unit order.
    const sorted = [...patterns].sort();
    const capacity = sorted.reduce((sum, pattern) => sum + pattern.length, 1);
    const parent = new Int32Array(capacity);
    const unitOf = new Uint16Array(capacity);
    const depth = new Int32Array(capacity);
    const terminal = new Uint8Array(capacity);
    const path = [ROOT];
    let count = 1;
    let previous = '';
    for (const pattern of sorted) {
      let common = 0;
      while (common < pattern.length && common < previous.length && pattern.charCodeAt(common) === previous.charCodeAt(common)) common += 1;
      for (let index = common; index < pattern.length; index += 1) {
        parent[count] = path[index]!;
        unitOf[count] = pattern.charCodeAt(index);
        depth[count] = index + 1;
        path[index + 1] = count;
        count += 1;
      }
      if (pattern.length > 0) terminal[path[pattern.length]!] = 1;
      previous = pattern;
    }
    // Edges grouped by parent (a counting sort), each group in code-unit order.
    this.#edgeStart = new Int32Array(count + 1);
    this.#edgeUnit = new Uint16Array(Math.max(0, count - 1));
    this.#edgeTarget = new Int32Array(Math.max(0, count - 1));
    for (let node = 1; node < count; node += 1) this.#edgeStart[parent[node]! + 1] += 1;
    for (let node = 0; node < count; node += 1) this.#edgeStart[node + 1] += this.#edgeStart[node]!;
    const fill = this.#edgeStart.slice(0, count);
    for (let node = 1; node < count; node += 1) {
      const edge = fill[parent[node]!]!++;
      this.#edgeUnit[edge] = unitOf[node]!;
      this.#edgeTarget[edge] = node;
      if (parent[node] === ROOT) this.#rootTable[unitOf[node]!] = node;
    }
    this.#fail = new Int32Array(count);
    this.#depth = depth.slice(0, count);
    this.#longest = new Int32Array(count);

    // Breadth first, so a node's failure link (a shallower node) is complete before the node is used.
    const queue = new Int32Array(count);
    let tail = 0;
    for (let edge = this.#edgeStart[ROOT]!; edge < this.#edgeStart[ROOT + 1]!; edge += 1) {
      const child = this.#edgeTarget[edge]!;
      this.#longest[child] = terminal[child] ? 1 : 0;
      queue[tail++] = child;
    }
    for (let head = 0; head < tail; head += 1) {
      const node = queue[head]!;
      for (let edge = this.#edgeStart[node]!; edge < this.#edgeStart[node + 1]!; edge += 1) {
        const unit = this.#edgeUnit[edge]!;
        const child = this.#edgeTarget[edge]!;
        let fallback = this.#fail[node]!;
        let target = this.#child(fallback, unit);
        while (target === 0 && fallback !== ROOT) {
          fallback = this.#fail[fallback]!;
          target = this.#child(fallback, unit);
        }
        this.#fail[child] = target;
        this.#longest[child] = terminal[child] ? depth[child]! : this.#longest[target]!;
        queue[tail++] = child;
      }
    }
  }

  #child(node: number, unit: number): number {
    if (node === ROOT) return this.#rootTable[unit]!;
    let low = this.#edgeStart[node]!;
    let high = this.#edgeStart[node + 1]!;
    if (high - low <= SCAN_LIMIT) {
      for (; low < high; low += 1) if (this.#edgeUnit[low] === unit) return this.#edgeTarget[low]!;
      return 0;
    }
    while (low < high) {
      const middle = (low + high) >>> 1;
      const found = this.#edgeUnit[middle]!;
      if (found === unit) return this.#edgeTarget[middle]!;
      if (found < unit) low = middle + 1;
      else high = middle;
    }
    return 0;
  }

  /**
   * The ranges of the text covered by a pattern, overlapping and adjacent matches merged. With `tail`, the end of
   * the text is covered too when it is the beginning of a pattern (text cut in the middle of one).
   */
  ranges(text: string, tail = false): Ranges {
    const starts: number[] = [];
    const ends: number[] = [];
    // Hot loop: the tables are locals and the common cases (the root, a node with few children) are inlined.
    const rootTable = this.#rootTable;
    const edgeStart = this.#edgeStart;
    const edgeUnit = this.#edgeUnit;
    const edgeTarget = this.#edgeTarget;
    const fail = this.#fail;
    const longest = this.#longest;
    // Ends only grow, but a long match may reach back over several earlier ranges: they merge into one.
    const cover = (start: number, end: number) => {
      while (ends.length > 0 && ends[ends.length - 1]! >= start) {
        start = Math.min(start, starts.pop()!);
        ends.pop();
      }
      starts.push(start);
      ends.push(end);
    };
    let node = ROOT;
    for (let index = 0; index < text.length; index += 1) {
      const unit = text.charCodeAt(index);
      let next = 0;
      for (;;) {
        if (node === ROOT) {
          next = rootTable[unit]!;
          break;
        }
        const first = edgeStart[node]!;
        const last = edgeStart[node + 1]!;
        if (last - first <= SCAN_LIMIT) {
          for (let edge = first; edge < last; edge += 1) {
            if (edgeUnit[edge] === unit) {
              next = edgeTarget[edge]!;
              break;
            }
          }
        } else {
          next = this.#child(node, unit);
        }
        if (next !== 0) break;
        node = fail[node]!;
      }
      node = next;
      const length = longest[node]!;
      if (length === 0) continue;
      const start = index + 1 - length;
      const top = ends.length - 1;
      // The common case, inlined: the match extends the last range.
      if (top >= 0 && ends[top]! >= start && starts[top]! <= start) ends[top] = index + 1;
      else cover(start, index + 1);
    }
    // The current node is the longest end of the text that begins some pattern.
    if (tail && node !== ROOT) cover(text.length - this.#depth[node]!, text.length);
    return { starts, ends };
  }
}
