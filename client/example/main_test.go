package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"larder.dev/larder/client"
	"larder.dev/larder/handlers"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// The example runs against the real server on both databases: it lists the
// seeded products, creates a tag the API then serves, reports the 404's
// problem, and waits out a 429 by its Retry-After. The server's clock is set
// three seconds before a minute ends, so the wait is short.
func TestExampleAgainstTheServer(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		cfg := config.Defaults()
		cfg.RateLimit = 6
		cfg.AuthFailLimit = 1 << 20
		var offset atomic.Int64
		srv, err := handlers.New(st, handlers.Options{
			Config: cfg,
			Log:    slog.New(slog.NewTextHandler(io.Discard, nil)),
			Now:    func() time.Time { return time.Now().Add(time.Duration(offset.Load())) },
		})
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(srv)
		defer hs.Close()
		org := dbtest.NewSeededOrg(t, st)
		key := org.Key(t, policy.Test, "all")

		now := time.Now()
		offset.Store(int64(now.Truncate(time.Minute).Add(57 * time.Second).Sub(now)))
		var out bytes.Buffer
		if err := run(context.Background(), hs.URL+"/v1", key, "Made by the example", &out); err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
		got := out.String()
		t.Log(got)
		for _, want := range []*regexp.Regexp{
			regexp.MustCompile(`(?m)^organization \d+ ".*", test account, 6 requests per minute$`),
			regexp.MustCompile(`(?m)^\d+ products, first 3:\n  \d+ \S.*\n  \d+ \S.*\n  \d+ \S.*\n`),
			regexp.MustCompile(`(?m)^created tag \d+ "Made by the example"$`),
			regexp.MustCompile(`(?m)^product 999999999: 404 NOT_FOUND \(req_\w+\)$`),
			regexp.MustCompile(`(?m)^429 req_\w+: waiting [1-9]\d* s \(Retry-After\) before retrying$`),
			regexp.MustCompile(`(?m)^rate limited once, retried after Retry-After, and served$`),
		} {
			if !want.MatchString(got) {
				t.Errorf("output lacks %s", want)
			}
		}

		// The tag exists in the test account, as the typed client reads it.
		c, err := client.NewClient(hs.URL+"/v1", client.Key(org.Key(t, policy.Test, "all")))
		if err != nil {
			t.Fatal(err)
		}
		tags, err := c.ListTags(context.Background(), client.ListTagsParams{RefType: client.TagRefTypePRODUCT, Name: client.NewOptString("Made by the example")})
		if err != nil {
			t.Fatal(err)
		}
		if len(tags.Data) != 1 || !strings.HasPrefix(tags.Data[0].Name, "Made by the example") {
			t.Fatalf("tags %+v", tags.Data)
		}
	})
}
