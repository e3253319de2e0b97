package connlimit

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
)

// accepting serves l, handing every accepted connection to the channel.
func accepting(t *testing.T, l *Listener) <-chan net.Conn {
	t.Helper()
	accepted := make(chan net.Conn, 16)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c
		}
	}()
	t.Cleanup(func() { _ = l.Close() })
	return accepted
}

// dialFrom connects to addr from the loopback address from (127.0.0.0/8
// is all loopback on Linux), so one test plays several clients.
func dialFrom(t *testing.T, from, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Skipf("cannot dial from %s here: %v", from, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// closedByServer reports whether the server ended c without a word; the
// deadline only keeps a broken cap from hanging the test.
func closedByServer(t *testing.T, c net.Conn) bool {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	n, err := c.Read(make([]byte, 1))
	return n == 0 && err != nil && !errors.Is(err, os.ErrDeadlineExceeded)
}

func mustAccept(t *testing.T, accepted <-chan net.Conn, who string) net.Conn {
	t.Helper()
	select {
	case c := <-accepted:
		return c
	case <-time.After(storetest.EventuallyBound): // a hang guard
		t.Fatalf("%s was not accepted", who)
		return nil
	}
}

// TestCapPerAddress holds the cap's connections from one address: the next
// one from it is closed at once, another address is served, and a closed
// connection gives its place back.
func TestCapPerAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := New(ln, 2, nil)
	accepted := accepting(t, l)
	addr := ln.Addr().String()

	dialFrom(t, "127.0.0.1", addr)
	dialFrom(t, "127.0.0.1", addr)
	first := mustAccept(t, accepted, "the first connection")
	mustAccept(t, accepted, "the second connection")

	over := dialFrom(t, "127.0.0.1", addr)
	if !closedByServer(t, over) {
		t.Error("the connection over the cap was not closed by the server")
	}
	dialFrom(t, "127.0.0.2", addr)
	mustAccept(t, accepted, "a connection from another address")

	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if n := l.Open(netip.MustParseAddr("127.0.0.1")); n != 1 {
		t.Fatalf("127.0.0.1 holds %d connections after one closed, want 1", n)
	}
	dialFrom(t, "127.0.0.1", addr)
	mustAccept(t, accepted, "a connection after one closed")
}

// TestCloseGivesBackOnce: closing a connection twice gives its place back
// once, and the last one gone forgets the address.
func TestCloseGivesBackOnce(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := New(ln, 0, nil)
	if l.max != DefaultMaxPerAddr {
		t.Errorf("cap %d, want the default %d", l.max, DefaultMaxPerAddr)
	}
	accepted := accepting(t, l)
	dialFrom(t, "127.0.0.1", ln.Addr().String())
	dialFrom(t, "127.0.0.1", ln.Addr().String())
	a := mustAccept(t, accepted, "a")
	b := mustAccept(t, accepted, "b")
	_ = a.Close()
	_ = a.Close()
	if n := l.Open(netip.MustParseAddr("127.0.0.1")); n != 1 {
		t.Errorf("%d open after closing one twice, want 1", n)
	}
	_ = b.Close()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.open) != 0 {
		t.Errorf("%d addresses remembered after every connection closed, want 0", len(l.open))
	}
}
