// The envelope of a protected value: AES-256-GCM under one state key, a fresh 96-bit nonce each, and the column
// (`table.column`) as associated data, so an envelope copied into another column fails to open. The text form is
// `agentctl.encrypted.v1:<keyId>:{"version":1,"algorithm":"AES-256-GCM","keyId":...,"nonce":...,"ciphertext":...}`
// with the nonce and the ciphertext (the GCM tag appended) in base64, as the reference implementation writes it.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { AgentctlError } from '@agentctl/sdk';

export const ENVELOPE_PREFIX = 'agentctl.encrypted.v1:';
const ALGORITHM = 'AES-256-GCM';
const FORMAT_VERSION = 1;
const TAG_BYTES = 16;
const NONCE_BYTES = 12;
/** What the key check seals, under its own associated data: opening it proves a key is the database's. */
const KEY_CHECK_VALUE = 'agentctl-state-key-check-v1';
const KEY_CHECK_CONTEXT = 'state_encryption.key_check';

/** Whether a stored value is an envelope (of any key). */
export const isEnvelope = (value: unknown): value is string => typeof value === 'string' && value.startsWith(ENVELOPE_PREFIX);

const invalid = (context: string, why: string) =>
  new AgentctlError('AGENTCTL_E_STATE_ENVELOPE_INVALID', `${context} ${why}`, {
    help: 'restore the database from a backup made with its key; `agentctl db encryption inventory` counts the damaged values',
  });

interface Envelope {
  readonly keyId: string;
  readonly nonce: Buffer;
  readonly ciphertext: Buffer;
}

/** The parts of an envelope; a malformed one is AGENTCTL_E_STATE_ENVELOPE_INVALID naming `context`. */
export function parseEnvelope(stored: string, context: string): Envelope {
  if (!stored.startsWith(ENVELOPE_PREFIX)) throw invalid(context, 'is plaintext, but the database requires an envelope');
  const rest = stored.slice(ENVELOPE_PREFIX.length);
  const colon = rest.indexOf(':');
  let body: { version?: unknown; algorithm?: unknown; keyId?: unknown; nonce?: unknown; ciphertext?: unknown };
  try {
    body = JSON.parse(rest.slice(colon + 1)) as typeof body;
  } catch {
    throw invalid(context, 'holds a malformed envelope');
  }
  if (colon < 1 || typeof body !== 'object' || body === null) throw invalid(context, 'holds a malformed envelope');
  if (body.version !== FORMAT_VERSION || body.algorithm !== ALGORITHM) throw invalid(context, `holds an envelope of an unsupported format (${String(body.version)}, ${String(body.algorithm)})`);
  if (typeof body.keyId !== 'string' || body.keyId !== rest.slice(0, colon)) throw invalid(context, 'holds an envelope whose key ids disagree');
  if (typeof body.nonce !== 'string' || typeof body.ciphertext !== 'string') throw invalid(context, 'holds a malformed envelope');
  const nonce = Buffer.from(body.nonce, 'base64');
  const ciphertext = Buffer.from(body.ciphertext, 'base64');
  if (nonce.length !== NONCE_BYTES || ciphertext.length < TAG_BYTES || nonce.toString('base64') !== body.nonce || ciphertext.toString('base64') !== body.ciphertext) {
    throw invalid(context, 'holds a malformed envelope');
  }
  return { keyId: body.keyId, nonce, ciphertext };
}

/** The key id an envelope names, or null for a value that is not a well-formed envelope. */
export function envelopeKeyId(stored: string): string | null {
  try {
    return parseEnvelope(stored, 'value').keyId;
  } catch {
    return null;
  }
}

/** One state key: seals and opens the envelopes of its key id. The key bytes never leave this object. */
export class StateCipher {
  readonly keyId: string;
  readonly #key: Buffer;

  constructor(keyId: string, key: Buffer) {
    this.keyId = keyId;
    this.#key = key;
  }

  /** Seals `text` for `context` (`table.column`) under a fresh nonce. */
  seal(text: string, context: string): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, nonce, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(text, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    const body = JSON.stringify({ version: FORMAT_VERSION, algorithm: ALGORITHM, keyId: this.keyId, nonce: nonce.toString('base64'), ciphertext: ciphertext.toString('base64') });
    return `${ENVELOPE_PREFIX}${this.keyId}:${body}`;
  }

  /** The text sealed in `stored` for `context`; anything else is AGENTCTL_E_STATE_ENVELOPE_INVALID. */
  open(stored: string, context: string): string {
    const envelope = parseEnvelope(stored, context);
    if (envelope.keyId !== this.keyId) throw invalid(context, `is sealed with key id ${envelope.keyId}, not the database's key id ${this.keyId}`);
    const decipher = createDecipheriv('aes-256-gcm', this.#key, envelope.nonce, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(envelope.ciphertext.subarray(envelope.ciphertext.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(envelope.ciphertext.subarray(0, envelope.ciphertext.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw invalid(context, `fails authentication under key id ${this.keyId}: it was changed, or moved from another field`);
    }
  }

  /** The key check the database keeps: a fixed text sealed under this key. */
  keyCheck(): string {
    return this.seal(KEY_CHECK_VALUE, KEY_CHECK_CONTEXT);
  }

  /** Whether `stored` is a key check sealed under this very key. */
  verifies(stored: string): boolean {
    try {
      return this.open(stored, KEY_CHECK_CONTEXT) === KEY_CHECK_VALUE;
    } catch {
      return false;
    }
  }
}
