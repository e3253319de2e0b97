package store

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
)

// publishingStore is a store at a fixed time (moved with *now) with a
// YOUTUBE and a TWITTER account of org "org".
func publishingStore(t *testing.T, be backend) (s *Store, now *time.Time, youtube, twitter string) {
	t.Helper()
	s, _ = be.open(t)
	at := time.Date(2026, 5, 4, 12, 0, 0, 0, time.UTC)
	s.SetClock(func() time.Time { return at })
	ctx := context.Background()
	yt, err := s.ConnectSocialAccount(ctx, "org", apitypes.SocialAccount{Platform: "YOUTUBE", ExtUserName: "Chan"})
	if err != nil {
		t.Fatal(err)
	}
	tw, err := s.ConnectSocialAccountTo(ctx, "org", apitypes.SocialAccount{Platform: "TWITTER", ExtUserName: "Tw"}, "webhook:http://hooks.example/p")
	if err != nil {
		t.Fatal(err)
	}
	return s, &at, yt.PostAccountID, tw.PostAccountID
}

func content(account string) PostContent {
	return PostContent{ProjectID: "prj", ClipID: "c01", PostAccountID: account, Title: "Hello", Privacy: "public"}
}

func TestAccountsKeepTheirPublishDestination(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, _, youtube, twitter := publishingStore(t, be)
		for id, want := range map[string]string{youtube: "dir", twitter: "webhook:http://hooks.example/p"} {
			a, err := s.GetSocialAccount(ctx, "org", id)
			if err != nil || a.PublishTo != want {
				t.Fatalf("account %s: %+v %v, want destination %q", id, a, err, want)
			}
		}
		// Connecting the same account again replaces its destination.
		_, err := s.ConnectSocialAccountTo(ctx, "org", apitypes.SocialAccount{PostAccountID: twitter, Platform: "TWITTER", ExtUserName: "Tw"}, PublishToDir)
		if err != nil {
			t.Fatal(err)
		}
		if a, _ := s.GetSocialAccount(ctx, "org", twitter); a.PublishTo != PublishToDir {
			t.Fatalf("reconnected account publishes to %q, want dir", a.PublishTo)
		}
		if _, err := s.GetSocialAccount(ctx, "other", youtube); !errors.Is(err, ErrNotFound) {
			t.Fatalf("another org's account: %v, want ErrNotFound", err)
		}
	})
}

func TestCreatePostChargesTwitterWithinTheCap(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, now, youtube, twitter := publishingStore(t, be)
		yt, err := s.CreatePost(ctx, "org", content(youtube), PostLimits{MonthlyCap: 1}, nil)
		if err != nil || yt.CreditsCharged != 0 || yt.Platform != "YOUTUBE" || yt.PublishTo != PublishToDir || yt.Status != PostPending {
			t.Fatalf("youtube post: %+v %v", yt, err)
		}
		tw, err := s.CreatePost(ctx, "org", content(twitter), PostLimits{MonthlyCap: 1}, nil)
		if err != nil || tw.CreditsCharged != 1 || tw.PublishTo != "webhook:http://hooks.example/p" {
			t.Fatalf("twitter post: %+v %v", tw, err)
		}
		_, err = s.CreatePost(ctx, "org", content(twitter), PostLimits{MonthlyCap: 1}, nil)
		var capErr *quota.MonthlyCapError
		if !errors.As(err, &capErr) || capErr.Used != 1 || capErr.Cap != 1 {
			t.Fatalf("a twitter post past the cap: %v, want a MonthlyCapError at 1/1", err)
		}
		if _, err := s.CreatePost(ctx, "other", content(youtube), PostLimits{}, nil); !errors.Is(err, ErrNotFound) {
			t.Fatalf("a post to another org's account: %v, want ErrNotFound", err)
		}
		if used, _ := s.CreditsUsed(ctx, "org"); used != 1 {
			t.Fatalf("credits used = %d, want 1", used)
		}
		pending, err := s.PendingPosts(ctx)
		if err != nil || !slices.Equal(pending, []string{yt.ID, tw.ID}) {
			t.Fatalf("pending posts = %v %v, want the two made, oldest first", pending, err)
		}
		*now = now.AddDate(0, 1, 0) // a new month
		if _, err := s.CreatePost(ctx, "org", content(twitter), PostLimits{MonthlyCap: 1}, nil); err != nil {
			t.Fatalf("next month: %v", err)
		}
	})
}

func TestPostIsMarkedPublishedOnce(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, now, youtube, _ := publishingStore(t, be)
		p, err := s.CreatePost(ctx, "org", content(youtube), PostLimits{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		p.Attempts, p.LastError, p.NextAt = 1, "disk full", now.Add(time.Minute)
		if err := s.SavePostAttempt(ctx, p, nil); err != nil {
			t.Fatal(err)
		}
		if got, err := s.GetPost(ctx, p.ID); err != nil || got.Status != PostPending || got.Attempts != 1 || got.LastError != "disk full" {
			t.Fatalf("after a failed attempt: %+v %v, want pending with the attempt", got, err)
		}
		*now = now.Add(time.Minute)
		if err := s.MarkPostPublished(ctx, p.ID, *now, "/data/published/x", 0, nil); err != nil {
			t.Fatal(err)
		}
		if err := s.MarkPostPublished(ctx, p.ID, *now, "/elsewhere", 0, nil); !errors.Is(err, ErrNotPending) {
			t.Fatalf("marked published twice: %v", err)
		}
		if err := s.SavePostAttempt(ctx, p, nil); !errors.Is(err, ErrNotPending) {
			t.Fatalf("an attempt saved over a published post: %v", err)
		}
		got, err := s.GetPost(ctx, p.ID)
		if err != nil || got.Status != PostPublished || !got.PublishedAt.Equal(*now) || got.Location != "/data/published/x" || got.LastError != "" {
			t.Fatalf("published post = %+v %v", got, err)
		}
		if pending, _ := s.PendingPosts(ctx); len(pending) != 0 {
			t.Fatalf("a published post is pending: %v", pending)
		}
	})
}

func TestScheduleFiresOnceEvenWhenFiredConcurrently(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, now, _, twitter := publishingStore(t, be)
		sc, err := s.CreateSchedule(ctx, "org", content(twitter), now.Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if ids, _ := s.DueSchedules(ctx, 10); len(ids) != 0 {
			t.Fatalf("due before its time: %v", ids)
		}
		if next, ok, err := s.NextScheduleAt(ctx); err != nil || !ok || !next.Equal(now.Add(time.Hour)) {
			t.Fatalf("next schedule at %s %v %v", next, ok, err)
		}
		if used, _ := s.CreditsUsed(ctx, "org"); used != 0 {
			t.Fatalf("a schedule was charged before it fired: %d", used)
		}
		*now = now.Add(time.Hour)
		if ids, _ := s.DueSchedules(ctx, 10); len(ids) != 1 || ids[0] != sc.ID {
			t.Fatalf("due at its time: %v", ids)
		}

		var wg sync.WaitGroup
		posts := make(chan *Post, 8)
		for range 8 {
			wg.Go(func() {
				p, err := s.FireSchedule(ctx, sc.ID, PostLimits{}, nil)
				if err != nil {
					t.Error(err)
				}
				posts <- p
			})
		}
		wg.Wait()
		close(posts)
		var made []*Post
		for p := range posts {
			if p != nil {
				made = append(made, p)
			}
		}
		if len(made) != 1 || made[0].ScheduleID != sc.ID || made[0].Status != PostPending || made[0].CreditsCharged != 1 {
			t.Fatalf("posts made by 8 fires: %+v, want one pending and charged", made)
		}
		got, err := s.GetSchedule(ctx, sc.ID)
		if err != nil || got.Status != ScheduleFired || got.PostID != made[0].ID {
			t.Fatalf("schedule after firing: %+v %v", got, err)
		}
		if used, _ := s.CreditsUsed(ctx, "org"); used != 1 {
			t.Fatalf("credits used = %d, want 1", used)
		}
		if _, ok, _ := s.NextScheduleAt(ctx); ok {
			t.Fatal("a fired schedule is still next")
		}
		if err := s.CancelSchedule(ctx, "org", sc.ID); !errors.Is(err, ErrNotFound) {
			t.Fatalf("cancelling a fired schedule: %v, want ErrNotFound", err)
		}
	})
}

func TestCancelledScheduleNeverFires(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, now, youtube, _ := publishingStore(t, be)
		sc, err := s.CreateSchedule(ctx, "org", content(youtube), now.Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.CancelSchedule(ctx, "other", sc.ID); !errors.Is(err, ErrNotFound) {
			t.Fatalf("another org cancelled it: %v", err)
		}
		if err := s.CancelSchedule(ctx, "org", sc.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.CancelSchedule(ctx, "org", sc.ID); !errors.Is(err, ErrNotFound) {
			t.Fatalf("cancelled twice: %v", err)
		}
		*now = now.Add(time.Hour)
		if ids, _ := s.DueSchedules(ctx, 10); len(ids) != 0 {
			t.Fatalf("a cancelled schedule is due: %v", ids)
		}
		if p, err := s.FireSchedule(ctx, sc.ID, PostLimits{}, nil); p != nil || err != nil {
			t.Fatalf("firing a cancelled schedule made %+v, %v", p, err)
		}
		if got, _ := s.GetSchedule(ctx, sc.ID); got.Status != ScheduleCancelled || got.PostID != "" {
			t.Fatalf("cancelled schedule = %+v", got)
		}
	})
}

// Disconnecting an account cancels its pending schedules (the others and
// the other account's stay), keeps its fired schedules and posts, and
// removes it from the listing.
func TestDisconnectedAccountsSchedulesAreCancelled(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, now, youtube, twitter := publishingStore(t, be)
		fired, err := s.CreateSchedule(ctx, "org", content(youtube), now.Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		*now = now.Add(2 * time.Minute)
		post, err := s.FireSchedule(ctx, fired.ID, PostLimits{}, nil)
		if err != nil || post == nil {
			t.Fatalf("firing: %+v, %v", post, err)
		}
		var pending []string
		for i := range 2 {
			sc, err := s.CreateSchedule(ctx, "org", content(youtube), now.Add(time.Duration(i+1)*time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			pending = append(pending, sc.ID)
		}
		other, err := s.CreateSchedule(ctx, "org", content(twitter), now.Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.DisconnectSocialAccount(ctx, "other", youtube); !errors.Is(err, ErrNotFound) {
			t.Fatalf("another org disconnected it: %v", err)
		}
		n, err := s.DisconnectSocialAccount(ctx, "org", youtube)
		if err != nil || n != 2 {
			t.Fatalf("disconnect: %d cancelled, %v; want 2", n, err)
		}
		if _, err := s.DisconnectSocialAccount(ctx, "org", youtube); !errors.Is(err, ErrNotFound) {
			t.Fatalf("disconnected twice: %v", err)
		}
		for _, id := range pending {
			if got, _ := s.GetSchedule(ctx, id); got.Status != ScheduleCancelled {
				t.Errorf("pending schedule %s of the disconnected account is %s, want cancelled", id, got.Status)
			}
		}
		if got, _ := s.GetSchedule(ctx, fired.ID); got.Status != ScheduleFired || got.PostID != post.ID {
			t.Errorf("fired schedule = %+v, want it kept", got)
		}
		if got, _ := s.GetSchedule(ctx, other.ID); got.Status != SchedulePending {
			t.Errorf("the other account's schedule is %s, want pending", got.Status)
		}
		accounts, err := s.SocialAccounts(ctx, "org")
		if err != nil || len(accounts) != 1 || accounts[0].PostAccountID != twitter {
			t.Fatalf("accounts after disconnect: %+v, %v; want the TWITTER one alone", accounts, err)
		}
	})
}

// A TWITTER schedule is charged when it fires; when the month's credits are
// spent by then, it fires into a failed post that says why.
func TestScheduleFiredPastTheCapMakesAFailedPost(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, now, _, twitter := publishingStore(t, be)
		sc, err := s.CreateSchedule(ctx, "org", content(twitter), now.Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreatePost(ctx, "org", content(twitter), PostLimits{MonthlyCap: 1}, nil); err != nil {
			t.Fatal(err)
		}
		*now = now.Add(time.Minute)
		p, err := s.FireSchedule(ctx, sc.ID, PostLimits{MonthlyCap: 1}, nil)
		if err != nil || p == nil || p.Status != PostFailed || p.CreditsCharged != 0 || p.LastError == "" {
			t.Fatalf("fired past the cap: %+v %v, want a failed post", p, err)
		}
		if got, _ := s.GetSchedule(ctx, sc.ID); got.Status != ScheduleFired || got.PostID != p.ID {
			t.Fatalf("schedule = %+v, want fired with the failed post", got)
		}
		if used, _ := s.CreditsUsed(ctx, "org"); used != 1 {
			t.Fatalf("credits used = %d, want 1 (the refused post took none)", used)
		}
		if pending, _ := s.PendingPosts(ctx); len(pending) != 1 || pending[0] == p.ID {
			t.Fatalf("pending posts = %v, want only the post task's", pending)
		}
	})
}
