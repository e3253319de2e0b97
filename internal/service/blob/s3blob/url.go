package s3blob

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/minio/minio-go/v7/pkg/s3utils"
)

// Config locates a bucket and says how to reach it.
type Config struct {
	Bucket   string
	Prefix   string // keys go under Prefix + "/"; "" = the bucket's root
	Endpoint string // HOST[:PORT]; the default is AWS S3, s3.amazonaws.com
	Secure   bool   // HTTPS (the default); false for a plain-HTTP endpoint such as a local MinIO
	Region   string // "" = AWS_REGION, else asked of the endpoint
	// Credentials; empty ones are read from the AWS environment variables
	// (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN) and then
	// from the shared credentials file (~/.aws/credentials, AWS_PROFILE).
	AccessKey, SecretKey, SessionToken string
}

// DefaultEndpoint is AWS S3's.
const DefaultEndpoint = "s3.amazonaws.com"

// URLForm is the form ParseURL takes, for messages.
const URLForm = "s3://BUCKET[/PREFIX][?endpoint=HOST:PORT&region=REGION&secure=false]"

// IsURL tells a bucket address from a directory path.
func IsURL(s string) bool { return strings.HasPrefix(s, "s3://") }

// ParseURL reads s3://BUCKET/PREFIX?endpoint=HOST:PORT&region=REGION&secure=false.
// endpoint may also be written http://HOST:PORT (plain HTTP, as secure=false)
// or https://HOST:PORT. Errors name the rule broken; the caller adds the flag.
func ParseURL(raw string) (Config, error) {
	fail := func(format string, args ...any) (Config, error) {
		return Config{}, fmt.Errorf("%q: "+format+" (the form is "+URLForm+")", append([]any{raw}, args...)...)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fail("not a URL: %v", err)
	}
	if u.Scheme != "s3" {
		return fail("the scheme must be s3://, not %q", u.Scheme+"://")
	}
	if u.User != nil || u.Port() != "" || u.Fragment != "" {
		return fail("credentials, a port or a fragment do not belong in the bucket's name: credentials come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, the port goes in endpoint=")
	}
	c := Config{Bucket: u.Hostname(), Endpoint: DefaultEndpoint, Secure: true}
	if err := s3utils.CheckValidBucketNameStrict(c.Bucket); err != nil {
		return fail("bucket %q: %v", c.Bucket, err)
	}
	if p := strings.Trim(u.Path, "/"); p != "" {
		if !blob.ValidKey(p) {
			return fail("prefix %q must be slash-separated names, none empty or starting with a dot", p)
		}
		c.Prefix = p
	}
	q := u.Query()
	for name, vals := range q {
		if !slices.Contains([]string{"endpoint", "region", "secure"}, name) {
			return fail("unknown parameter %q: the parameters are endpoint, region and secure", name)
		}
		if len(vals) != 1 {
			return fail("parameter %q is given %d times", name, len(vals))
		}
	}
	if q.Has("endpoint") {
		ep := q.Get("endpoint")
		if rest, ok := strings.CutPrefix(ep, "http://"); ok {
			ep, c.Secure = rest, false
		} else {
			ep = strings.TrimPrefix(ep, "https://")
		}
		if !validHostPort(ep) {
			return fail("endpoint %q must be HOST or HOST:PORT (optionally after http:// or https://), with no path", q.Get("endpoint"))
		}
		c.Endpoint = ep
	}
	if q.Has("secure") {
		secure, err := strconv.ParseBool(q.Get("secure"))
		if err != nil {
			return fail("secure must be true or false, not %q", q.Get("secure"))
		}
		if secure && strings.HasPrefix(q.Get("endpoint"), "http://") {
			return fail("secure=true contradicts the endpoint's http://")
		}
		c.Secure = secure
	}
	c.Region = q.Get("region")
	return c, nil
}

// validHostPort accepts HOST or HOST:PORT with a port from 1 to 65535.
func validHostPort(s string) bool {
	if s == "" || strings.ContainsAny(s, "/?#@ ") {
		return false
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return !strings.Contains(s, ":") // a bare host
	}
	n, err := strconv.Atoi(port)
	return host != "" && err == nil && n > 0 && n <= 65535
}

// String is the address of c as ParseURL reads it, without credentials.
func (c Config) String() string {
	u := url.URL{Scheme: "s3", Host: c.Bucket, Path: "/" + c.Prefix}
	q := url.Values{}
	if c.Endpoint != DefaultEndpoint {
		q.Set("endpoint", c.Endpoint)
	}
	if c.Region != "" {
		q.Set("region", c.Region)
	}
	if !c.Secure {
		q.Set("secure", "false")
	}
	u.RawQuery = q.Encode()
	return u.String()
}
