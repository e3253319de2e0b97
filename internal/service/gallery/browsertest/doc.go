// Package browsertest holds the gallery's browser test: one clipperd and a
// real headless Chromium driven through the pages. It lives apart from
// package gallery so that the gallery's unit tests build without the server
// and chromedp.
package browsertest
