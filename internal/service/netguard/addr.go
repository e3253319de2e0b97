// Package netguard decides where clipperd's outbound HTTP may connect.
// Imports, conclusion-action webhooks and the webhook publisher all connect
// through Client, whose dialer refuses non-public addresses after name
// resolution, on the very address being connected to, so neither DNS
// rebinding nor a redirect reaches the host's own network. SMTP is not
// guarded: the relay is the operator's own choice.
package netguard

import (
	"context"
	"net"
	"net/netip"
	"strings"
)

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

// IsPrivateAddr reports whether ip is not a public unicast address, one an
// outbound request must not reach unless private addresses are allowed. It
// covers loopback, RFC 1918 and fc00::/7, link-local, multicast,
// unspecified and the ranges of blockedPrefixes; IPv4-mapped IPv6 counts as
// its IPv4.
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

// NonPublicAddr returns a non-public address that host is or resolves to,
// or the zero Addr when all of them are public. It lets a request be
// refused where its address is already visible (at create); Client checks
// again when it connects. "localhost" and the names under it are loopback
// whatever DNS says (RFC 6761). A failed lookup is returned as it is, a
// *net.DNSError, for the caller to judge.
func NonPublicAddr(ctx context.Context, host string) (netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return nonPublic(ip), nil
	}
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return netip.AddrFrom4([4]byte{127, 0, 0, 1}), nil
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return netip.Addr{}, err
	}
	for _, addr := range addrs {
		if bad := nonPublic(addr); bad.IsValid() {
			return bad, nil
		}
	}
	return netip.Addr{}, nil
}

// nonPublic is ip, unmapped, when it is not public; else the zero Addr.
func nonPublic(ip netip.Addr) netip.Addr {
	if IsPrivateAddr(ip) {
		return ip.Unmap()
	}
	return netip.Addr{}
}
