package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/reqlog"
	"larder.dev/larder/policy"
)

func init() {
	commands = append(commands,
		command{"requests", "requests --org ID --env live|test [--status 4xx] [--error-code CODE] [--key KEY_ID] [--method M] [--operation OP] [--since T] [--until T] [--before ROW_ID] [--limit N] | --org ID [--env E] --request-id R | --failed-auth [filters] | --org ID --env E --deprecated [--since T]  the request log, newest first; one request in full with its bodies and events; the failed authentications; or which keys still use what is deprecated (T: RFC 3339, or a duration ago: 90m, 6h, 7d)", requestsCommand},
	)
}

// requestFlags are the flags of larder requests.
type requestFlags struct {
	org, key, before, limit                                            int
	env, requestID, status, errorCode, method, operation, since, until string
	failedAuth, deprecated                                             bool
	// set are the flags given.
	set map[string]bool
}

// listFlags are the flags that narrow or page a list, which --request-id
// does not take.
var listFlags = []string{"status", "error-code", "key", "method", "operation", "since", "until", "before", "limit"}

// requestsCommand prints a page of an account's request log, one request in
// full, or a page of the failed authentications.
func requestsCommand(ctx context.Context, e *env, args []string) error {
	c := e.command("requests", needs{store: true})
	var f requestFlags
	c.IntVar(&f.org, "org", 0, "organization id (required, but with --failed-auth)")
	c.StringVar(&f.env, "env", "", "live or test (required for a list; with --request-id, only that environment is searched)")
	c.StringVar(&f.requestID, "request-id", "", "print this one request (req_…) in full: both bodies and the events it emitted")
	c.BoolVar(&f.deprecated, "deprecated", false, "list, per key, what it used that the description deprecates (how often, when last) instead of the requests: who must move before it goes")
	c.BoolVar(&f.failedAuth, "failed-auth", false, "list the failed authentications of the whole server (they belong to no account) instead of an account's requests")
	c.StringVar(&f.status, "status", "", "only answers of this class: 2xx, 3xx, 4xx or 5xx")
	c.StringVar(&f.errorCode, "error-code", "", "only answers with this problem code (VALIDATION_ERROR, …)")
	c.IntVar(&f.key, "key", 0, "only requests made with this API key id")
	c.StringVar(&f.method, "method", "", "only requests with this HTTP method")
	c.StringVar(&f.operation, "operation", "", "only requests of this operation id (getTag, …)")
	c.StringVar(&f.since, "since", "", "only requests that arrived at or after T: an RFC 3339 time, or a duration ago (90m, 6h, 7d)")
	c.StringVar(&f.until, "until", "", "only requests that arrived before T: an RFC 3339 time, or a duration ago")
	c.IntVar(&f.before, "before", 0, "only requests older than this row id (the next page's cursor the previous page printed)")
	c.IntVar(&f.limit, "limit", reqlog.DefaultPage, fmt.Sprintf("most recent requests shown (at most %d)", reqlog.MaxPage))
	// environment is the list's, or the one environment --request-id is
	// searched in (empty: both).
	var environment policy.Environment
	var filter reqlog.Filter
	return c.run(ctx, args, func() (err error) {
		f.set = map[string]bool{}
		c.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
		if f.requestID != "" {
			environment, err = f.checkShow()
			return err
		}
		if f.deprecated {
			for _, name := range append([]string{"failed-auth"}, listFlags...) {
				if f.set[name] && name != "since" {
					return fmt.Errorf("--deprecated lists keys, not requests: it takes --org, --env and --since only")
				}
			}
		}
		switch {
		case f.failedAuth && (f.org != 0 || f.env != "" || f.key != 0):
			return fmt.Errorf("--failed-auth lists requests of no account: it takes no --org, --env or --key")
		case !f.failedAuth && (f.org == 0 || f.env == ""):
			return fmt.Errorf("requests needs --org and --env (or --failed-auth, or --org with --request-id)")
		case !f.failedAuth:
			if environment, err = parseEnv(f.env); err != nil {
				return err
			}
		}
		filter, err = f.filter(time.Now())
		return err
	}, func(ctx context.Context, st *store.Store) error {
		if f.requestID != "" {
			return requestShow(ctx, e, st, &f, environment)
		}
		if f.deprecated {
			return deprecatedUses(ctx, e, st, &f, environment, filter.Since)
		}
		var rows []*ent.APIRequest
		var err error
		if f.failedAuth {
			rows, err = reqlog.ListFailedAuth(ctx, st.Client, filter)
		} else {
			rows, err = reqlog.List(ctx, st.Client, f.org, environment, filter)
		}
		if err != nil {
			return err
		}
		// A full page may have more behind it; a short one is the last.
		var next *int
		if len(rows) == filter.Limit {
			next = &rows[len(rows)-1].ID
		}
		if e.json {
			list := make([]map[string]any, len(rows))
			for i, r := range rows {
				list[i] = requestJSON(r)
			}
			return e.print(map[string]any{"requests": list, "next_before": next}, "")
		}
		tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ROW\tTIME (UTC)\tMETHOD\tPATH\tSTATUS\tERROR\tREQUEST ID\tDURATION\tKEY\tCLIENT")
		for _, r := range rows {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.CreatedAt.UTC().Format("2006-01-02 15:04:05.000"),
				r.Method, r.Path, r.Status, dash(r.ErrorCode), r.RequestID, millis(r.DurationUs), ref(r.APIKeyID), dash(r.ClientAddr))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		switch {
		case len(rows) == 0:
			_, err = fmt.Fprintln(e.stdout, "no requests")
		case next != nil:
			_, err = fmt.Fprintf(e.stdout, "next page: --before %d\n", *next)
		default:
			_, err = fmt.Fprintln(e.stdout, "last page")
		}
		return err
	})
}

// checkShow checks the flags of --request-id, which looks up one request of
// organization f.org, and returns the one environment it is searched in
// (empty: both).
func (f *requestFlags) checkShow() (policy.Environment, error) {
	switch {
	case f.failedAuth:
		return "", fmt.Errorf("--request-id looks up one request of an organization: it takes no --failed-auth")
	case f.org == 0:
		return "", fmt.Errorf("--request-id needs --org")
	}
	var set []string
	for _, name := range listFlags {
		if f.set[name] {
			set = append(set, "--"+name)
		}
	}
	if len(set) > 0 {
		return "", fmt.Errorf("--request-id shows one request: it takes no %s", strings.Join(set, ", "))
	}
	if f.env == "" {
		return "", nil
	}
	return parseEnv(f.env)
}

// requestShow prints the request with id f.requestID of organization f.org
// in full, with the events it emitted; only, when not empty, is the one
// environment it is searched in.
func requestShow(ctx context.Context, e *env, st *store.Store, f *requestFlags, only policy.Environment) error {
	r, environment, err := reqlog.Find(ctx, st.Client, f.org, f.requestID)
	if err != nil {
		return err
	}
	if only != "" && environment != only {
		return fmt.Errorf("no request %s in this organization's %s log (it is in the %s log)", strconv.Quote(f.requestID), only, environment)
	}
	evs, err := reqlog.Events(ctx, st.Client, r)
	if err != nil {
		return err
	}
	if e.json {
		out := requestJSON(r)
		out["env"] = string(environment)
		out["request_body"] = body(r.RequestBody)
		out["response_body"] = body(r.ResponseBody)
		list := make([]map[string]any, len(evs))
		for i, ev := range evs {
			list[i] = map[string]any{"event_id": ev.EventID, "type": ev.Type, "resource_type": ev.ResourceType,
				"resource_id": ev.ResourceID, "created_at": ev.CreatedAt}
		}
		out["events"] = list
		return e.print(out, "")
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 2, 4, 2, ' ', 0)
	status := strconv.Itoa(r.Status)
	if r.ErrorCode != "" {
		status += " " + r.ErrorCode
	}
	for _, line := range [][2]string{
		{"request", r.RequestID},
		{"env", string(environment)},
		{"row", strconv.Itoa(r.ID)},
		{"time (UTC)", r.CreatedAt.UTC().Format("2006-01-02 15:04:05.000000")},
		{"method", r.Method},
		{"path", r.Path},
		{"operation", dash(r.Operation)},
		{"status", status},
		{"duration", millis(r.DurationUs)},
		{"key", ref(r.APIKeyID)},
		{"client request id", dash(r.ClientRequestID)},
		{"client address", dash(r.ClientAddr)},
		{"user agent", dash(r.UserAgent)},
	} {
		fmt.Fprintf(tw, "%s:\t%s\n", line[0], line[1])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, part := range []struct {
		name string
		body []byte
	}{{"request body", r.RequestBody}, {"response body", r.ResponseBody}} {
		fmt.Fprintf(&b, "\n%s:\n", part.name)
		switch {
		case part.body == nil:
			b.WriteString("(not kept)\n")
		case len(part.body) == 0:
			b.WriteString("(empty)\n")
		default:
			b.Write(part.body)
			if part.body[len(part.body)-1] != '\n' {
				b.WriteByte('\n')
			}
		}
	}
	if r.Truncated {
		fmt.Fprintf(&b, "(a body was longer than %d KB and was cut)\n", reqlog.MaxBody>>10)
	}
	fmt.Fprintf(&b, "\nevents emitted: %d\n", len(evs))
	etw := tabwriter.NewWriter(&b, 2, 4, 2, ' ', 0)
	for _, ev := range evs {
		fmt.Fprintf(etw, "%s\t%s\t%s:%d\t%s\n", ev.EventID, ev.Type, ev.ResourceType, ev.ResourceID, ev.CreatedAt.UTC().Format(time.RFC3339))
	}
	if err := etw.Flush(); err != nil {
		return err
	}
	_, err = fmt.Fprint(e.stdout, b.String())
	return err
}

// filter is the flags' list filter, durations ago counted from now.
func (f *requestFlags) filter(now time.Time) (reqlog.Filter, error) {
	out := reqlog.Filter{ErrorCode: strings.TrimSpace(f.errorCode), KeyID: f.key, Operation: strings.TrimSpace(f.operation),
		Before: f.before, Limit: f.limit}
	var err error
	if out.StatusClass, err = reqlog.ParseStatusClass(f.status); err != nil {
		return out, fmt.Errorf("--status: %w, not %q", err, f.status)
	}
	if f.key < 0 {
		return out, fmt.Errorf("--key must be a key id, not %d", f.key)
	}
	if f.before < 0 {
		return out, fmt.Errorf("--before must be a row id, not %d", f.before)
	}
	if f.limit < 1 || f.limit > reqlog.MaxPage {
		return out, fmt.Errorf("--limit must be 1 to %d", reqlog.MaxPage)
	}
	if m := strings.TrimSpace(f.method); m != "" {
		if strings.IndexFunc(m, func(c rune) bool { return (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') }) >= 0 {
			return out, fmt.Errorf("--method must be an HTTP method (GET, POST, …), not %q", f.method)
		}
		out.Method = strings.ToUpper(m)
	}
	if out.Since, err = parseWhen("--since", f.since, now); err != nil {
		return out, err
	}
	if out.Until, err = parseWhen("--until", f.until, now); err != nil {
		return out, err
	}
	if !out.Since.IsZero() && !out.Until.IsZero() && !out.Since.Before(out.Until) {
		return out, fmt.Errorf("--since must be before --until")
	}
	return out, nil
}

// parseWhen reads a --since or --until value: an RFC 3339 time, or a
// duration ago (Go's syntax, 90m or 6h, or whole days, 7d); "" is no bound.
func parseWhen(name, v string, now time.Time) (time.Time, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t.UTC(), nil
	}
	var ago time.Duration
	if days, ok := strings.CutSuffix(v, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 {
			return time.Time{}, fmt.Errorf("%s must be an RFC 3339 time (2006-01-02T15:04:05Z) or a duration ago (90m, 6h, 7d), not %q", name, v)
		}
		ago = time.Duration(n) * 24 * time.Hour
	} else {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return time.Time{}, fmt.Errorf("%s must be an RFC 3339 time (2006-01-02T15:04:05Z) or a duration ago (90m, 6h, 7d), not %q", name, v)
		}
		ago = d
	}
	return now.Add(-ago).UTC(), nil
}

// requestJSON is one logged request as --json prints it, without its bodies.
func requestJSON(r *ent.APIRequest) map[string]any {
	return map[string]any{
		"id":                r.ID,
		"request_id":        r.RequestID,
		"created_at":        r.CreatedAt.UTC(),
		"method":            r.Method,
		"path":              r.Path,
		"operation":         r.Operation,
		"status":            r.Status,
		"error_code":        r.ErrorCode,
		"duration_us":       r.DurationUs,
		"api_key_id":        r.APIKeyID,
		"client_request_id": r.ClientRequestID,
		"client_addr":       r.ClientAddr,
		"user_agent":        r.UserAgent,
		"truncated":         r.Truncated,
	}
}

// body is a kept body as text, or nil when none was kept.
func body(b []byte) *string {
	if b == nil {
		return nil
	}
	s := string(b)
	return &s
}

// millis formats a duration in microseconds as milliseconds.
func millis(us int64) string {
	return strconv.FormatFloat(float64(us)/1000, 'f', 1, 64) + "ms"
}

// dash is s, or - when empty.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// deprecatedUses prints, per key, what it used that is deprecated.
func deprecatedUses(ctx context.Context, e *env, st *store.Store, f *requestFlags, environment policy.Environment, since time.Time) error {
	uses, err := reqlog.DeprecatedUses(ctx, st.Client, f.org, environment, since)
	if err != nil {
		return err
	}
	if e.json {
		return e.print(map[string]any{"deprecated_uses": uses}, "")
	}
	if len(uses) == 0 {
		_, err := fmt.Fprintln(e.stdout, "no key used anything deprecated")
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tUSES\tREQUESTS\tLAST (UTC)\tLAST REQUEST ID")
	for _, u := range uses {
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%s\n", u.KeyID, u.Uses, u.Requests, u.Last.UTC().Format("2006-01-02 15:04:05"), u.LastRequestID)
	}
	return tw.Flush()
}
