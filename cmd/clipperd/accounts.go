package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/publish"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// accountsConnect records a connected social account. The hosted service
// connects accounts through each platform's OAuth consent; a self-hosted
// server has no such flow, so the operator records the account here. It
// prints the postAccountId as the last word of its output. Its posts go
// to the destination of --publish-to (package publish).
func accountsConnect(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("accounts connect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir, database := storeFlags(fs)
	org := fs.String("org", "", "organization id that owns the account (required)")
	platform := fs.String("platform", "", "one of "+strings.Join(apitypes.SocialPlatforms, ", ")+" (required)")
	name := fs.String("name", "", "display name on the platform (required)")
	extID := fs.String("ext-id", "", "platform-side account id (default: generated)")
	sub := fs.String("sub-account", "", "sub-account id: a Facebook page, Instagram business account or LinkedIn URN")
	picture := fs.String("picture", "", "avatar URL")
	profile := fs.String("profile", "", "public profile URL")
	publishTo := fs.String("publish-to", store.PublishToDir,
		"where the account's posts go: dir (DATA/published/<postAccountId>/<postId>/) or webhook:URL (a signed POST)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *org == "" || *platform == "" || *name == "" {
		return fmt.Errorf("%w: accounts connect: --org, --platform and --name are required", errUsage)
	}
	if err := publish.CheckDestination(*publishTo); err != nil {
		return fmt.Errorf("%w: accounts connect: --publish-to: %w", errUsage, err)
	}
	st, err := openStore(ctx, *dir, *database)
	if err != nil {
		return err
	}
	acct, err := st.ConnectSocialAccountTo(ctx, *org, apitypes.SocialAccount{
		Platform: strings.ToUpper(*platform), ExtUserName: *name, ExtUserID: *extID, SubAccountID: *sub,
		ExtUserPictureLink: *picture, ExtUserProfileLink: *profile,
	}, *publishTo)
	if cerr := st.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close store: %w", cerr)
	}
	if err != nil {
		return fmt.Errorf("accounts connect: %w", err)
	}
	_, err = fmt.Fprintf(stdout, "connected %s account %q for org %s, publishing to %s: %s\n",
		acct.Platform, acct.ExtUserName, *org, *publishTo, acct.PostAccountID)
	return err
}
