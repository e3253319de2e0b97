// Package validators holds the provider's plan-time validators. Each applies
// a rule of package rules, the same function clipperd applies to requests, so
// the provider and the service agree on what is valid; a broken rule is
// reported at the attribute it names as "<attribute path>: <rule>".
package validators
