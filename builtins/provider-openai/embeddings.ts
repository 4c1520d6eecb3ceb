// Embeddings of the `openai` kind: one `POST /v1/embeddings` per batch of texts, with `dimensions` sent so the API
// shortens the vectors to the size the workflow stores. The answer's vectors are put back in input order by `index`.
import { z } from 'zod';
import { invalidAnswer, parseProviderAnswer, postProviderJson, type EmbeddingCallContext, type EmbeddingRequest, type EmbeddingResponse, type ProviderSettings } from '@agentctl/sdk';

const DEFAULT_URL = 'https://api.openai.com/v1/embeddings';
/** The largest answer read: 128 texts of 4,096 numbers as JSON fit well below it. */
const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/**
 * Where embeddings are requested. `endpoint` is the whole Responses URL (`.../v1/responses`), so its sibling
 * `.../v1/embeddings` is used; an endpoint that already ends in `/embeddings` is used as written; any other is taken
 * as a base URL that `/embeddings` is added to.
 */
export function embeddingsUrl(provider: ProviderSettings): string {
  const endpoint = provider.endpoint;
  if (endpoint === undefined) return DEFAULT_URL;
  const url = new URL(endpoint);
  const path = url.pathname.replace(/\/+$/, '');
  if (path.endsWith('/embeddings')) url.pathname = path;
  else if (path.endsWith('/responses')) url.pathname = `${path.slice(0, -'/responses'.length)}/embeddings`;
  else url.pathname = `${path}/embeddings`;
  return url.toString();
}

const count = z.number().int().nonnegative();
const answerSchema = z.looseObject({
  data: z.array(z.looseObject({ index: count, embedding: z.array(z.unknown()) })),
  model: z.string().optional(),
  usage: z.looseObject({ prompt_tokens: count, total_tokens: count }),
});

export async function embedOpenAi(request: EmbeddingRequest, context: EmbeddingCallContext): Promise<EmbeddingResponse> {
  const body = await postProviderJson(context, {
    kind: 'openai',
    url: embeddingsUrl(context.provider),
    auth: { authorization: `Bearer ${context.credential ?? ''}` },
    body: { model: request.model, input: request.texts, dimensions: request.dimensions, encoding_format: 'float' },
    maxResponseBytes: MAX_RESPONSE_BYTES,
    errorIdentifiers: (parsed) => {
      const error = (parsed as { error?: { type?: unknown; code?: unknown } } | null)?.error;
      return [error?.type, error?.code];
    },
  });
  const answer = parseProviderAnswer('openai', body, answerSchema);
  // One vector per text, each index once: anything else cannot be matched back to its text.
  const ordered: unknown[][] = new Array(request.texts.length);
  for (const item of answer.data) {
    if (item.index >= ordered.length || ordered[item.index] !== undefined) throw invalidAnswer('openai', `embedding index ${item.index} is out of range or repeated (${request.texts.length} texts sent)`);
    ordered[item.index] = item.embedding;
  }
  if (answer.data.length !== request.texts.length) throw invalidAnswer('openai', `${answer.data.length} embeddings for ${request.texts.length} texts`);
  return {
    vectors: ordered as number[][],
    usage: { inputTokens: answer.usage.prompt_tokens, totalTokens: answer.usage.total_tokens },
    ...(answer.model === undefined ? {} : { model: answer.model }),
  };
}
