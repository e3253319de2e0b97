// Package acctest holds the provider's acceptance tests: Terraform runs
// against an in-process clipperd when TF_ACC is set. They live apart from
// package provider, which they reach only through its exported constructor
// (provider.New and its options), so that the provider's unit tests build
// without clipperd.
package acctest
