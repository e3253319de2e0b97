package outbound

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
)

// Sign is the X-Svc-Signature of a webhook: lowercase hex HMAC-SHA256, keyed
// with the organization's first API key, over the raw body bytes followed by
// the salt string (filled-gaps.md, Webhooks).
func Sign(key string, body []byte, salt string) string {
	m := hmac.New(sha256.New, []byte(key))
	m.Write(body)
	m.Write([]byte(salt))
	return hex.EncodeToString(m.Sum(nil))
}

// newSalt returns 8 random bytes as hex, fresh for every attempt.
func newSalt() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error()) // no entropy left: nothing sensible to sign with
	}
	return hex.EncodeToString(b[:])
}
