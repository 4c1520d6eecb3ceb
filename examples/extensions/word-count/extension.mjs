#!/usr/bin/env node
// An agentctl process extension: counts the lines, words and characters of a text and lists its most frequent
// words. It only reads its input, so the action can declare it pure.
import { serveExtension } from '@agentctl/sdk/process';

const inputSchema = {
  type: 'object',
  required: ['text'],
  additionalProperties: false,
  properties: {
    text: { type: 'string' },
    top: { type: 'integer', minimum: 1, maximum: 50 },
  },
};

const outputSchema = {
  type: 'object',
  required: ['lines', 'words', 'characters', 'top'],
  additionalProperties: false,
  properties: {
    lines: { type: 'integer' },
    words: { type: 'integer' },
    characters: { type: 'integer' },
    top: {
      type: 'array',
      items: {
        type: 'object',
        required: ['word', 'count'],
        additionalProperties: false,
        properties: { word: { type: 'string' }, count: { type: 'integer' } },
      },
    },
  },
};

await serveExtension({
  name: 'word-count',
  inputSchema,
  outputSchema,
  capabilities: ['text.count'],
  invoke({ text, top = 3 }) {
    const words = text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
    const counts = new Map();
    for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
    const ranked = [...counts].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1)).slice(0, top);
    return {
      lines: text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0),
      words: words.length,
      characters: [...text].length,
      top: ranked.map(([word, count]) => ({ word, count })),
    };
  },
});
