// The page's text primitives: every value goes through `esc` (or `json`), so nothing a task recorded becomes markup.

/** Text as HTML text or attribute content: `&`, `<`, `>`, `"` and `'` as entities; control characters but tab and newline dropped. */
export function esc(value: unknown): string {
  const text = value === null || value === undefined ? '' : typeof value === 'string' ? value : String(value);
  return text
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** A value for a table cell: `—` when absent, JSON for anything that is not a string or a number. */
export function cell(value: unknown): string {
  if (value === null || value === undefined || value === '') return '<span class="none">—</span>';
  return esc(typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : JSON.stringify(value));
}

/** A byte count as people read it: `812 B`, `4.0 KiB`, `1.25 MiB`. */
export function bytes(count: number): string {
  if (count < 1024) return `${count} B`;
  if (count < 1024 * 1024) return `${(count / 1024).toFixed(1)} KiB`;
  return `${(count / (1024 * 1024)).toFixed(2)} MiB`;
}

/** Milliseconds between two ledger timestamps, or null while one is missing or unreadable. */
export function millis(from: string | null | undefined, to: string | null | undefined): number | null {
  if (!from || !to) return null;
  const ms = Date.parse(to) - Date.parse(from);
  return Number.isFinite(ms) ? ms : null;
}

/** A duration as `850 ms`, `12.345 s` or `3 min 4.5 s`; `—` when unknown. */
export function duration(ms: number | null): string {
  if (ms === null) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(3)} s`;
  return `${Math.floor(ms / 60_000)} min ${((ms % 60_000) / 1000).toFixed(1)} s`;
}

/** The most characters of one recorded value the page shows; the rest is cut, and the full size said. */
export const VALUE_LIMIT = 4096;

/** A recorded value (request, result) as indented JSON, truncated beyond VALUE_LIMIT characters with its size shown. */
export function json(value: unknown, limit = VALUE_LIMIT): string {
  if (value === undefined || value === null) return '<p class="none">none recorded</p>';
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  const size = Buffer.byteLength(text);
  if (text.length <= limit) return `<pre>${esc(text)}</pre>`;
  return `<pre>${esc(text.slice(0, limit))}</pre><p class="cut">truncated: showing ${limit} of ${text.length} characters (${bytes(size)})</p>`;
}

/** A folded value: a `<details>` whose summary names it and says its size. */
export function fold(label: string, value: unknown, limit = VALUE_LIMIT): string {
  const size = value === undefined || value === null ? 0 : Buffer.byteLength(typeof value === 'string' ? value : JSON.stringify(value));
  return `<details><summary>${esc(label)} <span class="size">(${bytes(size)})</span></summary>${json(value, limit)}</details>`;
}

/** A table with column headers (`scope="col"`), or a `none` line when it has no rows; cells are already HTML. */
export function table(caption: string, headers: readonly string[], rows: readonly string[][], className = ''): string {
  if (rows.length === 0) return `<p class="none">No ${esc(caption.toLowerCase())}.</p>`;
  const head = headers.map((header) => `<th scope="col">${esc(header)}</th>`).join('');
  const body = rows.map((row) => `<tr>${row.map((value, index) => (index === 0 ? `<th scope="row">${value}</th>` : `<td>${value}</td>`)).join('')}</tr>`).join('\n');
  return `<div class="scroll" role="region" aria-label="${esc(caption)}" tabindex="0"><table${className ? ` class="${className}"` : ''}><caption>${esc(caption)}</caption><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table></div>`;
}

/** A section with a heading the nav links to. */
export function section(id: string, title: string, body: string): string {
  return `<section id="${id}" aria-labelledby="${id}-h"><h2 id="${id}-h">${esc(title)}</h2>\n${body}\n</section>`;
}

/** A state as a badge whose class colours it. */
export function badge(state: unknown): string {
  const text = String(state ?? 'unknown');
  return `<span class="badge s-${esc(text.replace(/[^a-z_]/g, ''))}">${esc(text)}</span>`;
}
