package client

import (
	"testing"
)

// What two clients share depends on their Shared, service, key and
// organization: the limiter is per key, the rest per organization, and a
// client without a Shared shares nothing.
func TestSharedScopesTheState(t *testing.T) {
	one, two := new(Shared), new(Shared)
	base := func(s *Shared) Config {
		return Config{BaseURL: "http://svc.test", APIKey: testKey(t), OrgID: "org-1", Shared: s}
	}
	cases := []struct {
		name         string
		a, b         Config
		limiter, org bool // shared
	}{
		{"same Shared, service, key and org", base(one), base(one), true, true},
		{"trailing slash: the same service", base(one),
			func() Config { c := base(one); c.BaseURL += "/"; return c }(), true, true},
		{"another org of the key", base(one),
			func() Config { c := base(one); c.OrgID = "org-2"; return c }(), true, false},
		{"no org and an org", func() Config { c := base(one); c.OrgID = ""; return c }(), base(one), true, false},
		{"another key", base(one),
			func() Config { c := base(one); c.APIKey += "-other"; return c }(), false, false},
		{"another service", base(one),
			func() Config { c := base(one); c.BaseURL = "http://svc2.test"; return c }(), false, false},
		{"another Shared", base(one), base(two), false, false},
		{"no Shared: each its own", base(nil), base(nil), false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, err := New(tc.a)
			if err != nil {
				t.Fatal(err)
			}
			b, err := New(tc.b)
			if err != nil {
				t.Fatal(err)
			}
			if got := a.limiter == b.limiter; got != tc.limiter {
				t.Errorf("limiter shared %v, want %v", got, tc.limiter)
			}
			for what, same := range map[string]bool{
				"slots": a.slots == b.slots, "clips": a.clips == b.clips, "pace": a.pace == b.pace,
			} {
				if same != tc.org {
					t.Errorf("%s shared %v, want %v", what, same, tc.org)
				}
			}
		})
	}
}

// A later client of an organization asking for fewer slots lowers the cap
// all of them wait for.
func TestSharedSlotsTakeTheLowerCap(t *testing.T) {
	shared := sharing(new(Shared))
	a := newTestClient(t, "http://svc.test", func(c *Config) { shared(c); c.MaxConcurrentProjects = 8 })
	newTestClient(t, "http://svc.test", func(c *Config) { shared(c); c.MaxConcurrentProjects = 3 })
	if limit, _ := a.slots.state(); limit != 3 {
		t.Fatalf("slot limit %d, want the lower 3", limit)
	}
}
