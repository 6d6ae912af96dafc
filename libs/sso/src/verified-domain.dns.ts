import { Resolver } from 'node:dns/promises';
import { VERIFICATION_RECORD_PREFIX, VERIFICATION_VALUE_PREFIX } from './verified-domain.decider';

/** What domain verification needs from DNS: `dns.promises.Resolver#resolveTxt`. */
export interface TxtResolver {
  resolveTxt(name: string): Promise<string[][]>;
}

export const TXT_RESOLVER = Symbol('TXT_RESOLVER');

/**
 * node's resolver; `DNS_SERVERS` (config `dnsServers`) replaces the system's servers, for
 * deployments whose resolver sees another view of DNS, and for tests (a local responder).
 */
export function txtResolver(servers: readonly string[]): TxtResolver {
  const resolver = new Resolver({ timeout: 3000, tries: 2 });
  if (servers.length > 0) resolver.setServers([...servers]);
  return resolver;
}

export const verificationRecordName = (domain: string) => `${VERIFICATION_RECORD_PREFIX}.${domain}`;
export const verificationRecordValue = (token: string) => `${VERIFICATION_VALUE_PREFIX}${token}`;

/** Outcome of looking for the proof: found, absent, or DNS could not tell (the message says why). */
export type TxtCheck = { found: true } | { found: false; reason: string };

/** Whether a TXT record at the domain's verification name holds exactly the token's value (long records come in chunks: joined). */
export async function checkVerificationRecord(resolver: TxtResolver, domain: string, token: string): Promise<TxtCheck> {
  const name = verificationRecordName(domain);
  const expected = verificationRecordValue(token);
  let records: string[][];
  try {
    records = await resolver.resolveTxt(name);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOTFOUND' || code === 'ENODATA') return { found: false, reason: `no TXT record at ${name}` };
    return { found: false, reason: `the DNS lookup of ${name} failed (${typeof code === 'string' ? code : 'error'}); retry later` };
  }
  if (records.some((chunks) => chunks.join('').trim() === expected)) return { found: true };
  return { found: false, reason: `no TXT record "${expected}" at ${name}` };
}
