package console

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/platform/clientaddr"
	"larder.dev/larder/policy"
)

// caller is the request as a page sees it: who is signed in (nil on public
// pages without a session), from where, and the context the page's calls
// run in (naming the person and address for the audit history).
type caller struct {
	Me   *people.Current
	From people.Client
	ctx  context.Context
	// route is the route being served (for the navigation).
	route Route
	tls   bool
	// env is the environment (live or test) the person sees: the one
	// chosen in the session, else test while the organization has no live
	// key and live once it has one.
	env string
}

// Context is the context of the page's calls.
func (c *caller) Context() context.Context { return c.ctx }

// orgID is the signed-in person's organization: every call a page makes
// passes it.
func (c *caller) orgID() int { return c.Me.Person.OrganizationID }

// guard serves rt to those it is for: without a session a page redirects to
// sign in (303), a role without the route is refused (403), a session that
// waits for its second factor goes to the code page, and a person who must
// set one up goes to that page first.
func (s *Server) guard(rt Route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := &caller{route: rt, tls: clientaddr.TLS(r, s.o.Trusted) || s.secure}
		if r.Method != http.MethodGet && r.Method != http.MethodHead && !s.bounded(w, r, rt) {
			c.ctx = r.Context()
			s.showError(w, r, c, http.StatusRequestEntityTooLarge, "Too large", fmt.Sprintf("What was sent is larger than this page takes (%s), so nothing was read or changed. Send less, or use the larder command for large files.", sizeText(rt.maxBody())))
			return
		}
		c.From = people.Client{Address: clientaddr.Of(r, s.o.Trusted), UserAgent: truncate(r.UserAgent(), 256)}
		ctx := audit.WithAddress(r.Context(), c.From.Address)
		if tok := s.token(r, c.tls); tok != "" {
			cur, err := s.o.People.Session(ctx, tok)
			switch {
			case err == nil:
				c.Me = &cur
			case errors.Is(err, people.ErrNoSession):
				s.clearSession(w, c.tls)
			default:
				c.ctx = ctx
				s.fail(w, r, c, err)
				return
			}
		}
		if c.Me != nil {
			ctx = audit.WithUser(audit.WithActor(ctx, c.Me.Person.Email), c.Me.Person.ID)
		}
		c.ctx = ctx
		if rt.Public {
			rt.serve(w, r, c)
			return
		}
		switch {
		case c.Me == nil:
			target := Prefix + "sign-in"
			if r.Method == http.MethodGet && r.URL.Path != Prefix {
				target += "?next=" + url.QueryEscape(r.URL.RequestURI())
			}
			http.Redirect(w, r, target, http.StatusSeeOther)
		case c.Me.Pending && !rt.Pending:
			http.Redirect(w, r, Prefix+"sign-in/code", http.StatusSeeOther)
		case c.Me.MustEnroll && !c.Me.Pending && !rt.Enrolling && !rt.Pending:
			http.Redirect(w, r, Prefix+"account/second-factor", http.StatusSeeOther)
		case !rt.Allows(c.Me.Person.Role):
			if err := s.environment(r, c); err != nil {
				s.fail(w, r, c, err)
				return
			}
			s.forbidden(w, r, c)
		default:
			if err := s.environment(r, c); err != nil {
				s.fail(w, r, c, err)
				return
			}
			rt.serve(w, r, c)
		}
	})
}

// environment settles the environment of a signed-in person's page. A link
// that names one (?env=live or ?env=test, as every page's links did before
// the switch was one for the whole console) chooses it for the session, so
// the banner and every later page agree with what the link shows; a page
// whose link names none reads the session's, which the guard writes into
// the query, where every page reads its environment.
func (s *Server) environment(r *http.Request, c *caller) error {
	q := r.URL.Query()
	named := q.Get("env")
	if named != "" && named != string(policy.Live) && named != string(policy.Test) {
		// The page answers its own error for an environment it does not
		// know.
		named = ""
	}
	if named != "" && (r.Method == http.MethodGet || r.Method == http.MethodHead) && named != c.Me.Env {
		if err := s.o.People.SetSessionEnv(c.ctx, c.Me.SessionID, named); err != nil {
			return err
		}
		c.Me.Env = named
	}
	c.env = c.Me.Env
	if c.env == "" {
		live, err := auth.HasActive(c.ctx, s.o.Client, c.orgID(), policy.Live, s.o.Now())
		if err != nil {
			return err
		}
		c.env = string(policy.Test)
		if live {
			c.env = string(policy.Live)
		}
	}
	if !q.Has("env") && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		q.Set("env", c.env)
		r.URL.RawQuery = q.Encode()
	}
	return nil
}

// MaxForm bounds the body of every console form; a route that takes a file
// says its own bound (Route.MaxBody).
const MaxForm = 64 << 10

// maxBody is the largest body the route reads.
func (rt Route) maxBody() int64 {
	if rt.MaxBody > 0 {
		return rt.MaxBody
	}
	return MaxForm
}

// bounded reads the body of r whole, up to the route's bound, before any page
// looks at it, and gives the page those bytes; false when the body is larger.
// Reading it here answers every route's oversized body alike (413), however
// its page would have read it.
func (s *Server) bounded(w http.ResponseWriter, r *http.Request, rt Route) bool {
	limit := rt.maxBody()
	if r.ContentLength > limit {
		return false
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	return true
}

// sizeText is n bytes in words (64 KB, 4 MB).
func sizeText(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MB", n>>20)
	}
	return fmt.Sprintf("%d KB", n>>10)
}

// The session cookie: __Host- (Secure, whole site, no Domain) whenever the
// client reached the server over TLS, or the console's address
// (Options.BaseURL) is https, so a proxy that terminates TLS without saying so
// still gets a Secure cookie; a plain name over plain HTTP, where a browser
// refuses a Secure cookie. A load balancer keeps a person on one
// server by it (deploy/haproxy.cfg).
const (
	SessionCookie       = "larder-session"
	SessionCookieSecure = "__Host-larder-session"
)

func cookieName(tls bool) string {
	if tls {
		return SessionCookieSecure
	}
	return SessionCookie
}

// token is the session token the request carries.
func (s *Server) token(r *http.Request, tls bool) string {
	ck, err := r.Cookie(cookieName(tls))
	if err != nil {
		return ""
	}
	return ck.Value
}

// setSession gives the browser the session's token until the session's
// absolute end.
func (s *Server) setSession(w http.ResponseWriter, c *caller, token string, expires time.Time) {
	http.SetCookie(w, &http.Cookie{
		Name:     cookieName(c.tls),
		Value:    token,
		Path:     "/",
		Expires:  expires,
		HttpOnly: true,
		Secure:   c.tls,
		SameSite: http.SameSiteLaxMode,
	})
}

// clearSession removes the session cookie.
func (s *Server) clearSession(w http.ResponseWriter, tls bool) {
	http.SetCookie(w, &http.Cookie{
		Name: cookieName(tls), Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: tls, SameSite: http.SameSiteLaxMode,
	})
}

// flashCookie carries a one-line message from an action to the page it
// redirects to (POST, redirect, GET).
const flashCookie = "larder-flash"

// redirect answers an action with 303 to path, showing msg there once.
func (s *Server) redirect(w http.ResponseWriter, r *http.Request, c *caller, path, msg string) {
	if msg != "" {
		http.SetCookie(w, &http.Cookie{
			Name: flashCookie, Value: url.QueryEscape(msg), Path: Prefix, MaxAge: 60,
			HttpOnly: true, Secure: c.tls, SameSite: http.SameSiteLaxMode,
		})
	}
	http.Redirect(w, r, path, http.StatusSeeOther)
}

// flash takes the message an action left for this page.
func (s *Server) flash(w http.ResponseWriter, r *http.Request, c *caller) string {
	ck, err := r.Cookie(flashCookie)
	if err != nil {
		return ""
	}
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: "", Path: Prefix, MaxAge: -1, HttpOnly: true, Secure: c.tls, SameSite: http.SameSiteLaxMode})
	msg, err := url.QueryUnescape(ck.Value)
	if err != nil {
		return ""
	}
	return truncate(msg, 300)
}

// nextPath is where to go after signing in: the page asked for when it is
// the console's own, the console's home otherwise (never another site).
func nextPath(raw string) string {
	if !strings.HasPrefix(raw, Prefix) || strings.ContainsAny(raw, "\\\r\n") || strings.Contains(raw, "//") {
		return Prefix
	}
	return raw
}

// truncate cuts s to at most n bytes.
func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
