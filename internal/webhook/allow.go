package webhook

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
)

// AllowList is where callbacks may go (PUZZLED_WEBHOOK_ALLOW_HOSTS): host
// names ("hooks.example.com"), every name under a domain
// ("*.example.com"), addresses ("203.0.113.7", "::1") and networks
// ("10.0.0.0/8"). It is explicit on purpose: a webhook must not become a
// way to reach the services next to puzzled. So
//
//   - a URL's host must be listed: a name by name (or under a listed
//     domain), an address by an address or network entry;
//   - at each connection, the address the name resolved to is checked
//     too: a loopback, private, link-local or otherwise special address
//     (127.0.0.0/8, 10.0.0.0/8, 169.254.0.0/16, fc00::/7, …) is refused
//     unless an address or network entry lists it. Listing a name does
//     not open the private ranges to it, so a name that resolves (or is
//     made to resolve) to an internal address is refused.
//
// An empty list allows nothing: webhooks are off.
type AllowList struct {
	names    map[string]bool
	suffixes []string // ".example.com" for "*.example.com"
	nets     []netip.Prefix
	text     string
}

// ParseAllowList reads a comma-separated list.
func ParseAllowList(s string) (AllowList, error) {
	a := AllowList{names: map[string]bool{}, text: strings.TrimSpace(s)}
	for item := range strings.SplitSeq(s, ",") {
		item = strings.ToLower(strings.TrimSpace(item))
		switch {
		case item == "":
		case strings.Contains(item, "/"):
			p, err := netip.ParsePrefix(item)
			if err != nil {
				return AllowList{}, fmt.Errorf("webhook allow-list: network %q: %w", item, err)
			}
			a.nets = append(a.nets, p.Masked())
		case isAddr(item):
			addr, _ := netip.ParseAddr(strings.Trim(item, "[]"))
			a.nets = append(a.nets, netip.PrefixFrom(addr.Unmap(), addr.Unmap().BitLen()))
		case strings.HasPrefix(item, "*."):
			if !validName(item[2:]) {
				return AllowList{}, fmt.Errorf("webhook allow-list: bad domain %q", item)
			}
			a.suffixes = append(a.suffixes, item[1:])
		default:
			if !validName(item) {
				return AllowList{}, fmt.Errorf("webhook allow-list: bad host %q (want a name, *.domain, an address or a network)", item)
			}
			a.names[strings.TrimSuffix(item, ".")] = true
		}
	}
	return a, nil
}

func isAddr(s string) bool {
	_, err := netip.ParseAddr(strings.Trim(s, "[]"))
	return err == nil
}

func validName(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, c := range label {
			if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' && c != '_' {
				return false
			}
		}
	}
	return true
}

// Empty reports whether nothing is allowed (webhooks are off).
func (a AllowList) Empty() bool {
	return len(a.names) == 0 && len(a.suffixes) == 0 && len(a.nets) == 0
}

func (a AllowList) String() string { return a.text }

// RefusedError is a callback refused by policy: not allowed, redirected
// elsewhere, an internal address. Retrying does not help, so a delivery
// refused so fails at once.
type RefusedError struct{ Reason string }

func (e *RefusedError) Error() string { return "refused: " + e.Reason }

func refused(format string, args ...any) error {
	return &RefusedError{Reason: fmt.Sprintf(format, args...)}
}

// IsRefused reports whether err is a refusal by policy.
func IsRefused(err error) bool {
	var r *RefusedError
	return errors.As(err, &r)
}

// maxURL caps the length of a callback URL.
const maxURL = 2048

// CheckURL parses a callback URL and checks it: http or https, no
// credentials, and a host the list allows. Errors are *RefusedError.
func (a AllowList) CheckURL(raw string) (*url.URL, error) {
	if a.Empty() {
		return nil, refused("webhooks are off on this server: its operator allows no host (PUZZLED_WEBHOOK_ALLOW_HOSTS)")
	}
	if len(raw) > maxURL {
		return nil, refused("the URL is over %d bytes", maxURL)
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return nil, refused("%q is not an absolute http(s) URL", raw)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, refused("scheme %q: want http or https", u.Scheme)
	}
	if u.User != nil {
		return nil, refused("credentials in the URL are not sent; put a token in the path or query instead")
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if addr, err := netip.ParseAddr(host); err == nil {
		if !a.listsAddr(addr.Unmap()) {
			return nil, refused("address %s is not in the allow-list", host)
		}
		return u, nil
	}
	if !a.allowsName(host) {
		return nil, refused("host %s is not in the allow-list", host)
	}
	return u, nil
}

func (a AllowList) allowsName(host string) bool {
	if a.names[host] {
		return true
	}
	for _, s := range a.suffixes {
		if strings.HasSuffix(host, s) {
			return true
		}
	}
	return false
}

func (a AllowList) listsAddr(addr netip.Addr) bool {
	for _, p := range a.nets {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// CheckAddr checks an address a connection is about to reach: a special
// address (loopback, private, link-local, …) must be listed itself.
func (a AllowList) CheckAddr(addr netip.Addr) error {
	addr = addr.Unmap()
	if a.listsAddr(addr) {
		return nil
	}
	if kind := specialKind(addr); kind != "" {
		return refused("%s is a %s address; list it (or its network) in the allow-list to reach it", addr, kind)
	}
	return nil
}

// specialNets are ranges that are neither loopback, private nor link-local
// by netip's account but must not be reached either.
var specialNets = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"), // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"), // NAT64: may lead to any IPv4 address
	netip.MustParsePrefix("2002::/16"),    // 6to4: likewise
}

// specialKind names the kind of a special address, or "" for an ordinary
// public one.
func specialKind(a netip.Addr) string {
	switch {
	case a.IsLoopback():
		return "loopback"
	case a.IsPrivate():
		return "private"
	case a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast():
		return "link-local"
	case a.IsUnspecified():
		return "unspecified"
	case a.IsMulticast(), a.IsInterfaceLocalMulticast():
		return "multicast"
	}
	for _, p := range specialNets {
		if p.Contains(a) {
			return "reserved"
		}
	}
	return ""
}
