package api

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// sourceOf names the platform of an http(s) videoUrl and the video's id on
// it. The spec's sourcePlatform enum has values for YouTube, Google Drive,
// Zoom and StreamYard; every other importable source (Vimeo, Loom, Twitch,
// public S3 MP4 links, ...) is fetched as a generic link, YTDLP_LINK. The id
// is the platform's video id where the URL carries one, else the last path
// segment (e.g. "talk.mp4"), else the host.
func sourceOf(u *url.URL) (platform, id string) {
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	segs := pathSegments(u)
	switch {
	case hostIs(host, "youtu.be"):
		return apitypes.PlatformYouTube, firstOr(segs, 0, host)
	case hostIs(host, "youtube.com"), hostIs(host, "youtube-nocookie.com"):
		if v := u.Query().Get("v"); v != "" {
			return apitypes.PlatformYouTube, v
		}
		if len(segs) >= 2 {
			switch segs[0] {
			case "shorts", "live", "embed", "v":
				return apitypes.PlatformYouTube, segs[1]
			}
		}
		return apitypes.PlatformYouTube, lastOr(segs, host)
	case hostIs(host, "drive.google.com"):
		// /file/d/<id>/view or /open?id=<id>
		for i := 0; i+1 < len(segs); i++ {
			if segs[i] == "d" {
				return apitypes.PlatformGDrive, segs[i+1]
			}
		}
		if v := u.Query().Get("id"); v != "" {
			return apitypes.PlatformGDrive, v
		}
		return apitypes.PlatformGDrive, lastOr(segs, host)
	case hostIs(host, "zoom.us"), hostIs(host, "zoom.com"):
		return apitypes.PlatformZoom, lastOr(segs, host)
	case hostIs(host, "streamyard.com"):
		return apitypes.PlatformStreamYard, lastOr(segs, host)
	default:
		return apitypes.PlatformYtdlpLink, lastOr(segs, host)
	}
}

// hostIs reports whether host is domain or one of its subdomains.
func hostIs(host, domain string) bool {
	return host == domain || strings.HasSuffix(host, "."+domain)
}

func pathSegments(u *url.URL) []string {
	var out []string
	for _, s := range strings.Split(u.Path, "/") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func firstOr(segs []string, i int, def string) string {
	if i < len(segs) {
		return segs[i]
	}
	return def
}

func lastOr(segs []string, def string) string {
	if len(segs) == 0 {
		return def
	}
	return path.Base(segs[len(segs)-1])
}

// resolveTimeout bounds the DNS lookup of a videoUrl host at create time.
const resolveTimeout = 5 * time.Second

// checkPublicHost refuses a videoUrl whose host is, or resolves to, a
// loopback, private, link-local or otherwise non-public address, so a
// project cannot make the server fetch from its own network. A host that
// does not exist is refused too; a lookup that fails for another reason
// (no DNS server reachable) lets the project through, and the pipeline
// checks the address again when it connects, which also defeats DNS
// rebinding between now and then.
func checkPublicHost(ctx context.Context, host string) error {
	ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
			return badField("videoUrl", "host %q does not resolve", host)
		}
		return nil
	}
	for _, addr := range addrs {
		if nonPublic(addr) {
			return badField("videoUrl", "host %q resolves to the non-public address %s; imports from loopback, private "+
				"and link-local addresses are refused (start clipperd with --allow-private-imports to allow them)", host, addr.Unmap())
		}
	}
	return nil
}

var (
	sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10") // carrier-grade NAT, RFC 6598
	thisNetwork        = netip.MustParsePrefix("0.0.0.0/8")
)

// nonPublic covers 127/8, 10/8, 172.16/12, 192.168/16, ::1, fc00::/7,
// link-local (169.254/16, fe80::/10), unspecified, 0/8 and 100.64/10.
func nonPublic(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsUnspecified() || sharedAddressSpace.Contains(a) || thisNetwork.Contains(a)
}
