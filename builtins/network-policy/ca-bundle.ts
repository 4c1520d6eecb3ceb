// customCa: a reviewed bundle of CA certificates, trusted in memory beside the system roots. Anything in it but
// CERTIFICATE blocks and whitespace is refused, so a private key pasted by mistake is never loaded or echoed.
import { X509Certificate } from 'node:crypto';
import { AgentctlError } from '@agentctl/sdk';

const BEGIN = /-----BEGIN ([^-\r\n]*)-----/g;
const HELP = 'give a PEM file of CERTIFICATE blocks only (no keys, no requests, no text between blocks)';

function invalid(problem: string): AgentctlError {
  return new AgentctlError('AGENTCTL_E_NETWORK_CA_INVALID', `customCa ${problem}`, { help: HELP });
}

/** The line (1-based) at `index`, to point at a problem without quoting the bundle. */
const lineAt = (text: string, index: number) => text.slice(0, index).split('\n').length;

/**
 * Splits the bundle into its certificates (PEM text of each), checking that each parses. Throws
 * AGENTCTL_E_NETWORK_CA_INVALID naming the problem (a block type, a line number), never the bundle's bytes.
 */
export function parseCaBundle(bundle: string): string[] {
  const certificates: string[] = [];
  let position = 0;
  for (;;) {
    const gap = bundle.slice(position).search(/\S/);
    if (gap < 0) break;
    const start = position + gap;
    BEGIN.lastIndex = start;
    const begin = BEGIN.exec(bundle);
    if (begin === null || begin.index !== start) throw invalid(`holds text outside PEM blocks (line ${lineAt(bundle, start)})`);
    const label = begin[1]!;
    const endMarker = `-----END ${label}-----`;
    const end = bundle.indexOf(endMarker, BEGIN.lastIndex);
    if (end < 0) throw invalid(`has a ${label} block without its END line (line ${lineAt(bundle, start)})`);
    if (label !== 'CERTIFICATE') throw invalid(`holds a ${label} block (line ${lineAt(bundle, start)}); only CERTIFICATE blocks are accepted`);
    const pem = `${bundle.slice(start, end + endMarker.length)}\n`;
    const body = bundle.slice(BEGIN.lastIndex, end);
    try {
      if (!/^[A-Za-z0-9+/=\s]*$/.test(body)) throw new Error('not base64');
      new X509Certificate(pem);
    } catch {
      throw invalid(`certificate ${certificates.length + 1} (line ${lineAt(bundle, start)}) does not parse`);
    }
    certificates.push(pem);
    position = end + endMarker.length;
  }
  if (certificates.length === 0) throw invalid('is empty: it holds no CERTIFICATE block');
  return certificates;
}
