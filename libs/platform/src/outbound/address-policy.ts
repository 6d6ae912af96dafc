import ipaddr from 'ipaddr.js';

/**
 * The range that keeps an IP address from being fetched, or undefined when it is a global unicast
 * address. Everything that is not plain unicast is refused: loopback, private, link-local,
 * unique-local, unspecified, multicast, broadcast, carrier-grade NAT, reserved and documentation
 * ranges, and the IPv6 forms that embed an IPv4 address (NAT64, 6to4, Teredo). An IPv4-mapped IPv6
 * address (::ffff:a.b.c.d) is judged as the IPv4 address it maps.
 */
export function refusedAddressRange(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  const range = parsed.range();
  return range === 'unicast' ? undefined : range;
}
