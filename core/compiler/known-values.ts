// A task's input as far as it is known before the run — the one partial renderer `plan` and the policy preview share.
// A template on inputs and vars renders now; one on an earlier task's output or on memory (or one that cannot render
// now) is known only at run time.
import type { JsonValue } from '@agentctl/sdk';
import { hasTemplate, parseTemplate, renderString, type TemplateScope } from './templates.js';

/** A string's value before the run, or undefined when only the run can tell it. */
function knownText(text: string, scope: TemplateScope): JsonValue | undefined {
  try {
    const parsed = parseTemplate(text);
    const later = parsed.segments.some((segment) => 'expression' in segment && (segment.expression.path[0] === 'tasks' || segment.expression.path[0] === 'memory'));
    return later ? undefined : renderString(text, scope, parsed);
  } catch {
    return undefined;
  }
}

/**
 * Walks a value, rendering what is known. `keep`: an unknown string stays as written (what `plan` shows) and `dynamic`
 * tells that one did; `omit`: an unknown field is left out, and an array holding one is left out whole (what the
 * policy preview judges).
 */
export function renderKnown(value: JsonValue, scope: TemplateScope, unknown: 'keep' | 'omit' = 'keep'): { value: JsonValue | undefined; dynamic: boolean } {
  let dynamic = false;
  const walk = (item: JsonValue): JsonValue | undefined => {
    if (typeof item === 'string') {
      if (!hasTemplate(item)) return item;
      const known = knownText(item, scope);
      if (known !== undefined) return known;
      dynamic = true;
      return unknown === 'keep' ? item : undefined;
    }
    if (Array.isArray(item)) {
      const items = item.map(walk);
      return items.some((entry) => entry === undefined) ? undefined : (items as JsonValue[]);
    }
    if (item !== null && typeof item === 'object') {
      const known: Record<string, JsonValue> = {};
      for (const [key, entry] of Object.entries(item)) {
        const rendered = walk(entry);
        if (rendered !== undefined) known[key] = rendered;
      }
      return known;
    }
    return item;
  };
  return { value: walk(value), dynamic };
}

/** A task's `with` as far as it is known before the run, unknown fields left out. */
export const knownValue = (value: JsonValue, scope: TemplateScope): JsonValue | undefined => renderKnown(value, scope, 'omit').value;
