// The import graph of agentctl's TypeScript sources, for the architecture tests: which file imports which (static,
// dynamic and type-only imports alike), its strongly connected parts (the import cycles), and its arrows by room.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** File (repository path with `/`) → the files of the graph it imports. */
export type ImportGraph = ReadonlyMap<string, ReadonlySet<string>>;

const SPECIFIERS = /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g;

function* sources(root: string, folder: string): Generator<string> {
  for (const name of readdirSync(join(root, folder))) {
    const path = `${folder}/${name}`;
    if (name === 'dist' || name === 'node_modules') continue;
    if (statSync(join(root, path)).isDirectory()) yield* sources(root, path);
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts')) yield path;
  }
}

/** The graph of the non-test sources under `folders`; an import of `x.js` is the file `x.ts` (or `x/index.ts`). */
export function importGraph(root: string, folders: readonly string[]): ImportGraph {
  const files = new Set(folders.flatMap((folder) => [...sources(root, folder)]));
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const targets = new Set<string>();
    for (const match of readFileSync(join(root, file), 'utf8').matchAll(SPECIFIERS)) {
      const specifier = match[1] ?? match[2] ?? match[3]!;
      if (!specifier.startsWith('.')) continue;
      const path = relative(root, resolve(root, dirname(file), specifier)).split(sep).join('/').replace(/\.js$/, '.ts');
      const found = files.has(path) ? path : existsSync(join(root, path.replace(/\.ts$/, ''), 'index.ts')) ? `${path.replace(/\.ts$/, '')}/index.ts` : undefined;
      if (found && files.has(found)) targets.add(found);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** Every import cycle: each strongly connected part of more than one file (or a file importing itself), files sorted. */
export function importCycles(graph: ImportGraph): string[][] {
  // Tarjan's algorithm, iterative over the graph's files in order.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const part: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      part.push(member);
    } while (member !== file);
    if (part.length > 1 || graph.get(file)?.has(file)) cycles.push(part.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles.sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
}

/** Every import as `FROM -> TO`, for rules on arrows. */
export function arrows(graph: ImportGraph): { from: string; to: string }[] {
  return [...graph].flatMap(([from, targets]) => [...targets].map((to) => ({ from, to })));
}
