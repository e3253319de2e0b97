package sources

import "net/netip"

// blockedPrefixes are ranges net/netip has no predicate for but that reach
// internal networks: "this network", carrier-grade NAT, IETF protocol
// assignments, benchmarking, reserved, NAT64.
var blockedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
}

// IsPrivateAddr reports whether ip is not a public unicast address: an
// import must not reach it unless private imports are allowed. It covers
// loopback, RFC 1918 and fc00::/7, link-local, multicast, unspecified and
// the ranges of blockedPrefixes; IPv4-mapped IPv6 counts as its IPv4.
func IsPrivateAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsUnspecified() || ip.IsLinkLocalUnicast() ||
		ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() || ip.IsMulticast() {
		return true
	}
	for _, p := range blockedPrefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}
