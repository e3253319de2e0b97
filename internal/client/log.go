package client

import (
	"context"
	"fmt"
	"net/http"
	"strings"
)

// maxLoggedBody bounds a body written to the Trace log.
const maxLoggedBody = 4096

// warn, debug and trace are the only ways anything reaches the Logger; they
// pass the fields through redact so the API key cannot leak even if a server
// echoes it.
func (c *Client) warn(ctx context.Context, msg string, fields map[string]any) {
	if c.log != nil {
		c.log.Warn(ctx, msg, c.redactFields(fields))
	}
}

func (c *Client) debug(ctx context.Context, msg string, fields map[string]any) {
	if c.log != nil {
		c.log.Debug(ctx, msg, c.redactFields(fields))
	}
}

func (c *Client) trace(ctx context.Context, msg string, fields map[string]any) {
	if c.log != nil {
		c.log.Trace(ctx, msg, c.redactFields(fields))
	}
}

func (c *Client) redactFields(fields map[string]any) map[string]any {
	out := make(map[string]any, len(fields))
	for k, v := range fields {
		switch v := v.(type) {
		case string:
			out[k] = c.redact(v)
		case error:
			out[k] = c.redact(v.Error())
		case map[string]string:
			m := make(map[string]string, len(v))
			for hk, hv := range v {
				m[hk] = c.redact(hv)
			}
			out[k] = m
		case fmt.Stringer:
			out[k] = c.redact(v.String())
		default:
			out[k] = v
		}
	}
	return out
}

// redact removes the API key from s.
func (c *Client) redact(s string) string {
	if c.apiKey == "" {
		return s
	}
	return strings.ReplaceAll(s, c.apiKey, "****")
}

// maskedAuth is the Authorization value as logged: the last four characters
// of a long key help tell keys apart; a short key is masked entirely.
func (c *Client) maskedAuth() string {
	if len(c.apiKey) >= 16 {
		return "Bearer ****" + c.apiKey[len(c.apiKey)-4:]
	}
	return "Bearer ****"
}

// headerFields flattens headers for the log, masking credentials.
func (c *Client) headerFields(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k, v := range h {
		if strings.EqualFold(k, "Authorization") {
			out[k] = c.maskedAuth()
			continue
		}
		out[k] = strings.Join(v, ", ")
	}
	return out
}

// bodyField is a body as logged: text, truncated.
func bodyField(b []byte) string {
	return truncate(string(b), maxLoggedBody)
}
