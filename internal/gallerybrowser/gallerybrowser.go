// Package gallerybrowser drives clipperd's gallery (/ui/) in a real headless
// Chromium through chromedp. The gallery's browser tests and the README's
// screenshot (scripts/gallery-screenshot) share it: both need a browser that
// starts in a container, a login through the form, and a finished project to
// look at.
package gallerybrowser

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/gallery"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/client"
)

// Binary is the browser program looked up on PATH: Debian's package
// chromium, which scripts/ensure-tools.sh installs.
const Binary = "chromium"

// SessionCookie is the cookie a gallery login sets over http.
const SessionCookie = gallery.SessionCookie

// Start starts a headless Chromium and returns a chromedp context of its
// first tab; cancel closes the browser and waits for it to exit.
func Start(ctx context.Context) (context.Context, context.CancelFunc, error) {
	path, err := exec.LookPath(Binary)
	if err != nil {
		return nil, nil, fmt.Errorf("gallerybrowser: %w", err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		// As root (containers, CI) Chromium refuses to start with its sandbox.
		chromedp.NoSandbox,
		// /dev/shm is small in containers; Chromium crashes when it fills up.
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1280, 800),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	tabCtx, cancelTab := chromedp.NewContext(allocCtx)
	cancel := func() { cancelTab(); cancelAlloc() }
	// The first Do starts the browser, bound to ctx rather than to the
	// shorter deadlines callers put on single steps.
	if err := chromedp.Do(tabCtx); err != nil {
		cancel()
		return nil, nil, fmt.Errorf("gallerybrowser: starting %s: %w", path, err)
	}
	return tabCtx, cancel, nil
}

// NewSession opens a tab with a cookie jar of its own in browser (a context
// from Start), so one login never leaks into another.
func NewSession(browser context.Context) (context.Context, context.CancelFunc) {
	return chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
}

// Login opens base's login page, types key into the form and submits it.
// It returns the answer to the form's post after redirects: 200 for the
// gallery a valid key leads to, 401 for a key the server refused.
func Login(ctx context.Context, base, key string) (*network.Response, error) {
	const field = `#login input[name="api_key"]`
	page, err := chromedp.Run(ctx, chromedp.NavigateResponse(base+"/ui/login"))
	if err != nil {
		return nil, fmt.Errorf("gallerybrowser: opening the login page: %w", err)
	}
	// A page without the form would leave the steps below waiting for it.
	if page.Status != http.StatusOK {
		return nil, fmt.Errorf("gallerybrowser: the login page %s answered %d", page.URL, page.Status)
	}
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(field), key)); err != nil {
		return nil, fmt.Errorf("gallerybrowser: login form: %w", err)
	}
	resp, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`#login button, #login [type="submit"]`)))
	if err != nil {
		return nil, fmt.Errorf("gallerybrowser: submitting the login form: %w", err)
	}
	return resp, nil
}

// HasSession reports whether the tab of ctx holds a gallery session cookie
// for base.
func HasSession(ctx context.Context, base string) (bool, error) {
	res, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{base + "/ui/"}})
	if err != nil {
		return false, fmt.Errorf("gallerybrowser: reading cookies: %w", err)
	}
	for _, c := range res.Cookies {
		if c.Name == SessionCookie {
			return true, nil
		}
	}
	return false, nil
}

// StartProject uploads the video file at path to the clipperd at base with
// key and makes a project of it as req asks (its VideoURL set to the
// upload), without waiting for it.
func StartProject(ctx context.Context, base, key, path string, req apitypes.CreateProjectRequest) (*apitypes.Project, error) {
	c, err := newClient(base, key)
	if err != nil {
		return nil, err
	}
	return startProject(ctx, c, path, req)
}

// FinishProject is StartProject, then waits until the project is COMPLETE.
func FinishProject(ctx context.Context, base, key, path string, req apitypes.CreateProjectRequest) (*apitypes.Project, error) {
	c, err := newClient(base, key)
	if err != nil {
		return nil, err
	}
	p, err := startProject(ctx, c, path, req)
	if err != nil {
		return nil, err
	}
	done, err := c.WaitForProject(ctx, p.ID, client.WaitOptions{PollInterval: 250 * time.Millisecond, MaxPollInterval: time.Second, Known: p})
	if err != nil {
		return nil, fmt.Errorf("gallerybrowser: project %s: %w", p.ID, err)
	}
	if done.Stage != apitypes.StageComplete {
		return nil, errors.New("gallerybrowser: project " + p.ID + " ended in stage " + string(done.Stage))
	}
	return done, nil
}

// newClient is a client of the clipperd at base whose rate limit, far above
// the server's test limit, never holds a test back.
func newClient(base, key string) (*client.Client, error) {
	return client.New(client.Config{BaseURL: base, APIKey: key, RequestsPerMinute: 6000})
}

func startProject(ctx context.Context, c *client.Client, path string, req apitypes.CreateProjectRequest) (*apitypes.Project, error) {
	upload, err := c.UploadFile(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("gallerybrowser: uploading %s: %w", path, err)
	}
	req.VideoURL = upload
	p, err := c.CreateProject(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("gallerybrowser: creating the project: %w", err)
	}
	return p, nil
}
