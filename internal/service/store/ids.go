package store

import (
	"crypto/rand"
	"encoding/hex"
)

// NewID returns a random identifier with a readable prefix ("prj_", "up_"...).
func NewID(prefix string) string {
	var b [10]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error()) // the OS entropy source is gone; nothing sensible remains
	}
	return prefix + hex.EncodeToString(b[:])
}

// NewSecret returns a random 32-byte hex string, for API keys.
func NewSecret(prefix string) string {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return prefix + hex.EncodeToString(b[:])
}
