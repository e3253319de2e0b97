package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

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
	state := installationFlags(fs)
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
	st, err := state.open(ctx)
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

// accountsList prints the org's connected accounts, one a line.
func accountsList(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("accounts list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	state := installationFlags(fs)
	org := fs.String("org", "", "organization id whose accounts to list (required)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *org == "" {
		return fmt.Errorf("%w: accounts list: --org is required", errUsage)
	}
	st, err := state.open(ctx)
	if err != nil {
		return err
	}
	var accounts []*store.SocialAccount
	list, err := st.SocialAccounts(ctx, *org)
	for i := 0; err == nil && i < len(list); i++ {
		var a *store.SocialAccount
		a, err = st.GetSocialAccount(ctx, *org, list[i].PostAccountID) // with its destination
		accounts = append(accounts, a)
	}
	if cerr := st.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close store: %w", cerr)
	}
	if err != nil {
		return fmt.Errorf("accounts list: %w", err)
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "POST ACCOUNT ID\tPLATFORM\tNAME\tSUB-ACCOUNT\tPUBLISHES TO")
	for _, a := range accounts {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", a.PostAccountID, a.Platform, a.ExtUserName, a.SubAccountID, a.PublishTo)
	}
	return w.Flush()
}

// accountsDisconnect forgets a connected account. Its pending publish
// schedules are cancelled with it (they could only fail when due); posts
// already made are published as before. A Terraform clipper_publish_schedule
// of a cancelled schedule is forgotten with a warning on destroy.
func accountsDisconnect(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("accounts disconnect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	state := installationFlags(fs)
	org := fs.String("org", "", "organization id that owns the account (required)")
	id := fs.String("account", "", "the account's postAccountId, as accounts list prints it (required)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *org == "" || *id == "" {
		return fmt.Errorf("%w: accounts disconnect: --org and --account are required", errUsage)
	}
	st, err := state.open(ctx)
	if err != nil {
		return err
	}
	cancelled, err := st.DisconnectSocialAccount(ctx, *org, *id)
	if cerr := st.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close store: %w", cerr)
	}
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("accounts disconnect: org %s has no connected account %s (accounts list shows them)", *org, *id)
	}
	if err != nil {
		return fmt.Errorf("accounts disconnect: %w", err)
	}
	_, err = fmt.Fprintf(stdout, "disconnected account %s of org %s; cancelled %d pending publish schedule(s)\n", *id, *org, cancelled)
	return err
}
