package outbound

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// Email is the content of an EMAIL delivery; the recipient is the
// delivery's Target.
type Email struct {
	Subject string `json:"subject"`
	Text    string `json:"text"`
}

// EmailBody encodes e as the Body of an EMAIL store.Delivery.
func EmailBody(e Email) string {
	b, _ := json.Marshal(e) // two strings cannot fail to marshal
	return string(b)
}

func parseEmail(body string) (Email, error) {
	var e Email
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		return e, fmt.Errorf("email delivery body is not {subject,text} JSON: %w", err)
	}
	return e, nil
}

// sendEmail hands the message to the SMTP relay, or without one writes it
// to DataDir/outbox/<deliveryId>.eml.
func (d *Dispatcher) sendEmail(ctx context.Context, dl *store.Delivery) error {
	e, err := parseEmail(dl.Body)
	if err != nil {
		return err
	}
	to, err := mail.ParseAddress(dl.Target)
	if err != nil {
		return fmt.Errorf("email address %q: %w", dl.Target, err)
	}
	from, err := mail.ParseAddress(d.cfg.From)
	if err != nil {
		return fmt.Errorf("sender address %q: %w", d.cfg.From, err)
	}
	msg := buildMessage(from, to, e, d.cfg.Store.Now(), messageID(dl.ID, from.Address))
	if d.cfg.SMTP == "" {
		path := filepath.Join(d.outboxDir(), strconv.FormatInt(dl.ID, 10)+".eml")
		if err := writeFileAtomic(path, msg); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		return nil
	}
	return sendSMTP(ctx, d.cfg.SMTP, from.Address, to.Address, msg)
}

// messageID is stable per delivery, so a retried message that did arrive
// can be recognised as a duplicate.
func messageID(id int64, from string) string {
	domain := "clipperd.localhost"
	if at := strings.LastIndexByte(from, '@'); at >= 0 && at+1 < len(from) {
		domain = from[at+1:]
	}
	return fmt.Sprintf("<delivery-%d.clipperd@%s>", id, domain)
}

// buildMessage renders an RFC 5322 message with CRLF line ends and a
// quoted-printable UTF-8 text body.
func buildMessage(from, to *mail.Address, e Email, now time.Time, msgID string) []byte {
	var b bytes.Buffer
	h := func(k, v string) { b.WriteString(k + ": " + v + "\r\n") }
	h("From", from.String())
	h("To", to.String())
	h("Subject", mime.QEncoding.Encode("utf-8", e.Subject))
	h("Date", now.Format(time.RFC1123Z))
	h("Message-ID", msgID)
	h("MIME-Version", "1.0")
	h("Content-Type", `text/plain; charset="utf-8"`)
	h("Content-Transfer-Encoding", "quoted-printable")
	b.WriteString("\r\n")
	text := strings.ReplaceAll(strings.ReplaceAll(e.Text, "\r\n", "\n"), "\n", "\r\n")
	qp := quotedprintable.NewWriter(&b)
	_, _ = qp.Write([]byte(text)) // writes to a bytes.Buffer do not fail
	_ = qp.Close()
	b.WriteString("\r\n")
	return b.Bytes()
}

// sendSMTP delivers msg over plain SMTP without authentication, the way a
// local relay (postfix, a sidecar) takes it.
func sendSMTP(ctx context.Context, addr, from, to string, msg []byte) error {
	var dialer net.Dialer
	dctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	conn, err := dialer.DialContext(dctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("smtp %s: %w", addr, err)
	}
	deadline := time.Now().Add(60 * time.Second)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	_ = conn.SetDeadline(deadline)
	// Stop unblocks a slow relay at once.
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
	defer stop()
	host, _, _ := net.SplitHostPort(addr)
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		conn.Close()
		return fmt.Errorf("smtp %s: greeting: %w", addr, err)
	}
	defer c.Close()
	step := func(what string, err error) error {
		if err != nil {
			return fmt.Errorf("smtp %s: %s: %w", addr, what, err)
		}
		return nil
	}
	if err := step("HELO", c.Hello("localhost")); err != nil {
		return err
	}
	if err := step("MAIL FROM", c.Mail(from)); err != nil {
		return err
	}
	if err := step("RCPT TO", c.Rcpt(to)); err != nil {
		return err
	}
	w, err := c.Data()
	if err := step("DATA", err); err != nil {
		return err
	}
	if _, err := w.Write(msg); err != nil {
		return step("DATA", err)
	}
	if err := step("end of DATA", w.Close()); err != nil {
		return err
	}
	return step("QUIT", c.Quit())
}
