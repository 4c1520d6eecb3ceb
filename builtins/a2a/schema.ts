// The `spec.a2aPeers` section (the reference format's A2aPeerDefinition) and the fields of an a2a.delegate task. A
// task's `peer` must name a declared peer: the input schema is built from the plan's section.
import { z } from 'zod';
import { defineSpecSection, secretReferenceSchema, type SecretReference, type SpecSectionValues } from '@agentctl/sdk';

/** The A2A protocol version agentctl speaks (JSON-RPC binding). */
export const A2A_PROTOCOL_VERSION = '1.0';

/** Headers the client sets itself: a peer entry may not override them. */
const PROTOCOL_HEADERS = new Set(['accept', 'content-type', 'content-length', 'host', 'a2a-version']);

const headerName = z
  .string()
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/, 'a header name is an HTTP token (letters, digits and !#$%&\'*+.^_`|~-)')
  .refine((name) => !PROTOCOL_HEADERS.has(name.toLowerCase()), { message: 'this header is set by the A2A client itself' });

const httpUrl = z.string().refine((text) => {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}, 'cardUrl must be an absolute http or https URL');

export const a2aPeerSchema = z.strictObject({
  cardUrl: httpUrl.describe("The URL of the peer's Agent Card; the network policy must allow it, and its interface must share its origin."),
  headers: z
    .record(headerName, secretReferenceSchema)
    .default({})
    .describe('Request headers of the card and every JSON-RPC request (e.g. Authorization), each a secret reference; never recorded, always redacted.'),
  timeoutSeconds: z.number().int().min(1).max(86400).default(120).describe('Bounds each HTTP exchange with the peer; the task timeout also applies.'),
  maxPolls: z.number().int().min(1).max(100000).default(100).describe('How many times a running remote task is observed (GetTask, or a SubscribeToTask stream) before the effect is left uncertain.'),
  pollIntervalMs: z.number().int().min(0).max(3600000).default(100).describe('The wait before each observation of a running remote task.'),
  protocolVersion: z.string().min(1).default(A2A_PROTOCOL_VERSION).describe('The A2A version the card must advertise for its JSON-RPC interface.'),
});

export type A2aPeer = z.output<typeof a2aPeerSchema>;

const PEER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const a2aPeersSection = defineSpecSection({
  key: 'a2aPeers',
  description: 'A2A peers that a2a.delegate tasks delegate to over JSON-RPC, by name.',
  schema: z
    .record(z.string().regex(PEER_NAME, 'an A2A peer name is 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit'), a2aPeerSchema)
    .default({}),
  secretReferences: (peers) =>
    Object.entries(peers).flatMap(([name, peer]) =>
      Object.entries(peer.headers).map(([header, reference]) => ({ reference: reference as SecretReference, where: `spec.a2aPeers.${name}.headers.${header}` })),
    ),
  urls: (peers) => Object.entries(peers).map(([name, peer]) => ({ url: peer.cardUrl, where: `spec.a2aPeers.${name}.cardUrl` })),
});

export const a2aDelegateActionSchema = z.strictObject({});

export type A2aDelegateAction = z.output<typeof a2aDelegateActionSchema>;

const MESSAGE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

const inputFields = (peer: z.ZodType<string>) => ({
  peer: peer.describe('The name of an entry of spec.a2aPeers.'),
  messageId: z
    .string()
    .regex(MESSAGE_ID, 'messageId is 1 to 128 letters, digits, ".", "_", ":" or "-", starting with a letter or digit')
    .describe('Identifies the message to the peer: the same id lets the peer recognise a message it already took.'),
  message: z.string().min(1, 'message must be a non-empty string').max(1048576, 'message is at most 1 MiB').describe('The text sent to the peer.'),
  contextId: z.string().min(1).max(256).optional().describe('The conversation the message belongs to, when continuing one.'),
});

/** The task input of the kind as a whole (`agentctl schema`): any peer name. */
export const a2aDelegateInputSchema = z.strictObject(inputFields(z.string().min(1)));

export type A2aDelegateInput = z.output<typeof a2aDelegateInputSchema>;

/** The task input within one plan: `peer` must name one of its peers. */
export function inputSchemaFor(sections: SpecSectionValues): z.ZodType {
  const names = Object.keys(a2aPeersSection.read(sections));
  const peer = z
    .string()
    .min(1)
    .superRefine((name, context) => {
      if (names.includes(name)) return;
      const declared = names.length > 0 ? `declared peers: ${names.join(', ')}` : 'spec.a2aPeers declares no peer';
      context.addIssue({ code: 'custom', message: `unknown A2A peer "${name}"; ${declared}` });
    });
  return z.strictObject(inputFields(peer));
}
