// State keys come from environment variables, by name: the database records a key's id and the name of the variable
// that holds it (never the key), so every later open knows which key it needs and where to find it.
import { AgentctlError } from '@agentctl/sdk';
import { StateCipher } from './state-cipher.js';

const KEY_ID = /^[A-Za-z0-9._-]{1,128}$/;
const VARIABLE = /^[A-Z_][A-Z0-9_]*$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Where a key is: its id and the environment variable that holds it. */
export interface KeyReference {
  readonly keyId: string;
  readonly variable: string;
}

/** Refuses a malformed key id or variable name (AGENTCTL_E_STATE_KEY_REFERENCE). */
export function checkReference(reference: KeyReference): void {
  if (!KEY_ID.test(reference.keyId)) {
    // The value is not repeated: a key pasted where its id belongs must not reach the terminal or a log.
    throw new AgentctlError('AGENTCTL_E_STATE_KEY_REFERENCE', `the key id (${reference.keyId.length} characters) is malformed: a key id is 1-128 letters, digits, ".", "_" or "-"`);
  }
  if (!VARIABLE.test(reference.variable)) {
    throw new AgentctlError('AGENTCTL_E_STATE_KEY_REFERENCE', `the key variable (${reference.variable.length} characters) is not an environment variable name: it must match [A-Z_][A-Z0-9_]*`, {
      help: 'pass the name of the variable that holds the key (--key-env AGENTCTL_STATE_KEY), never the key itself',
    });
  }
}

/** The cipher of the key `reference` names, read from the environment; every failure names the key id and the variable. */
export function resolveKey(reference: KeyReference, environment: NodeJS.ProcessEnv = process.env): StateCipher {
  checkReference(reference);
  const { keyId, variable } = reference;
  const text = environment[variable];
  if (text === undefined || text === '') {
    throw new AgentctlError('AGENTCTL_E_STATE_KEY_MISSING', `state key ${keyId} is needed, and its variable ${variable} is not set`, {
      help: `export ${variable} with the base64 key of key id ${keyId}`,
    });
  }
  const trimmed = text.trim();
  const key = BASE64.test(trimmed) ? Buffer.from(trimmed, 'base64') : undefined;
  if (!key || key.length !== 32) {
    throw new AgentctlError('AGENTCTL_E_STATE_KEY_MALFORMED', `${variable} (state key ${keyId}) must hold the base64 encoding of exactly 32 bytes${key ? `; it decodes to ${key.length}` : '; it is not base64'}`, {
      help: 'a new key: `openssl rand -base64 32`',
    });
  }
  return new StateCipher(keyId, key);
}
