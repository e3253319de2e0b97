// Package sources holds the rules about what a project's videoUrl may be:
// how it is imported (an uploadId, a media file link, a video platform page),
// the sourcePlatform it reports, and the size, length and credit limits of a
// source (which addresses an import may reach is package netguard's rule). The api checks a create
// request with them and the pipeline imports by them, so both agree.
package sources
