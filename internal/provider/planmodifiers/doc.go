// Package planmodifiers holds the provider's own plan modifiers, those the
// framework's stringplanmodifier, listplanmodifier, ... do not offer.
package planmodifiers
