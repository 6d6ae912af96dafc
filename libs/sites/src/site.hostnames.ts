import ipaddr from 'ipaddr.js';

/**
 * Custom hostnames of sites (pure rules). A site's hostname names it to readers' browsers, so it
 * must be a DNS name its organization proved it controls (a verified domain, or a name under one),
 * never an address: a name someone else owns would let one organization publish under another's
 * name, and an IP literal would name the service's own network.
 */

/** What a site's hostname must look like (the interface's pattern): lower-case labels, at least three. */
export const SITE_HOSTNAME = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?[.]){2,}[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$/;

/**
 * Whether a host is an IP address in any notation a resolver or a browser reads as one: IPv4 in
 * dotted, shortened, decimal, octal or hex form, IPv6 with or without brackets, and any name whose
 * last label is a number (the URL standard parses such a host as IPv4, or refuses it).
 */
export function isIpLiteral(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (ipaddr.isValid(bare)) return true;
  const labels = host.split('.');
  const last = labels[labels.length - 1] === '' && labels.length > 1 ? labels[labels.length - 2] : labels[labels.length - 1];
  return /^(\d+|0x[0-9a-f]*)$/i.test(last);
}

/** Why `hostname` cannot be a site's hostname, or null when its shape is fine. */
export function hostnameShapeProblem(hostname: string): string | null {
  if (isIpLiteral(hostname)) return 'hostname must be a host name, not an IP address';
  if (hostname.length > 512 || !SITE_HOSTNAME.test(hostname))
    return 'hostname must be a lower-case host name with at least three labels, like docs.example.com';
  return null;
}

/** Whether `hostname` is one of `domains` or a name under one. */
export function inVerifiedDomain(hostname: string, domains: Iterable<string>): boolean {
  for (const domain of domains) if (hostname === domain || hostname.endsWith(`.${domain}`)) return true;
  return false;
}

/** A request's host name (Fastify's `request.hostname`, without the port) as sites are looked up by it: lower case, without the root's trailing dot. */
export function hostOf(requestHostname: string | undefined): string {
  return (requestHostname ?? '').toLowerCase().replace(/\.$/, '');
}
