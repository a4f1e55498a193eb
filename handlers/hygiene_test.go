package handlers_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect"

	"larder.dev/larder/handlers"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
)

// docs/api-behaviour.md, "Input bounds": hostile inputs, one row each. Every refusal is a problem document that is itself valid JSON.
func TestInputHygiene(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		cases := []struct {
			name, method, path, body string
			status                   int
			code, field              string
		}{
			// Text: valid UTF-8 without U+0000, in queries and bodies.
			{"NUL in search", "GET", "/v1/foods?search=%00", "", 400, "VALIDATION_ERROR", "search"},
			{"invalid UTF-8 in search", "GET", "/v1/foods?search=%FF", "", 400, "VALIDATION_ERROR", "search"},
			{"NUL in a partial filter", "GET", "/v1/operations?name=a%00", "", 400, "VALIDATION_ERROR", "name"},
			{"invalid UTF-8 in an exact filter", "GET", "/v1/operations?code=%C3%28", "", 400, "VALIDATION_ERROR", "code"},
			{"NUL in sort", "GET", "/v1/tags?sort=%00", "", 400, "VALIDATION_ERROR", "sort"},
			{"escaped NUL in a body string", "POST", "/v1/tags", `{"name":"a\u0000b","ref_type":"PRODUCT"}`, 400, "VALIDATION_ERROR", "name"},
			{"raw 0xFF in a body string", "POST", "/v1/tags", "{\"name\":\"a\xffb\",\"ref_type\":\"PRODUCT\"}", 400, "VALIDATION_ERROR", "name"},
			{"lone surrogate in a body string", "POST", "/v1/tags", `{"name":"x","ref_type":"PRODUCT","description":"\ud800"}`, 201, "", ""},
			{"NUL in an update", "PATCH", "/v1/operations/{op}", `{"name":"\u0000"}`, 400, "VALIDATION_ERROR", "name"},
			// Decimals: 6 digits after the point, 15 significant, below 10^14.
			{"cost of 1e15", "POST", "/v1/operations", `{"code":"x1","name":"y","cost":1e15}`, 400, "VALIDATION_ERROR", "cost"},
			{"cost of exactly 10^14", "POST", "/v1/operations", `{"code":"x2","name":"y","cost":100000000000000}`, 400, "VALIDATION_ERROR", "cost"},
			{"cost with 8 decimals", "POST", "/v1/operations", `{"code":"x3","name":"y","cost":1.23456789}`, 400, "VALIDATION_ERROR", "cost"},
			{"cost with 16 significant digits", "POST", "/v1/operations", `{"code":"x4","name":"y","cost":1234567890.123456}`, 400, "VALIDATION_ERROR", "cost"},
			{"cost of 1e-7", "POST", "/v1/operations", `{"code":"x5","name":"y","cost":1e-7}`, 400, "VALIDATION_ERROR", "cost"},
			{"huge exponent", "POST", "/v1/operations", `{"code":"x6","name":"y","cost":1e999999999}`, 400, "VALIDATION_ERROR", "cost"},
			{"tiny exponent", "POST", "/v1/operations", `{"code":"x7","name":"y","qty":-1e-999999999}`, 400, "VALIDATION_ERROR", "qty"},
			{"a thousand digits", "POST", "/v1/operations", `{"code":"x8","name":"y","qty":` + strings.Repeat("9", 1000) + `}`, 400, "VALIDATION_ERROR", "qty"},
			{"zero with a huge exponent", "POST", "/v1/operations", `{"code":"xz","name":"y","qty":0e40000000}`, 201, "", ""},
			{"a quoted number", "POST", "/v1/operations", `{"code":"x9","name":"y","cost":"1.5"}`, 400, "VALIDATION_ERROR", "cost"},
			{"negative cost", "POST", "/v1/operations", `{"code":"xa","name":"y","cost":-0.000001}`, 400, "VALIDATION_ERROR", "cost"},
			{"percent over 100", "POST", "/v1/foods", `{"name":"f","name_fr":"f","suggested_yield_pct":100.000001}`, 400, "VALIDATION_ERROR", "suggested_yield_pct"},
			{"float column past the bounds", "PATCH", "/v1/operations/{op}", `{"qty":123456789012345678}`, 400, "VALIDATION_ERROR", "qty"},
			// Search and text filters: at most 200 characters.
			{"search of 201 characters", "GET", "/v1/foods?search=" + strings.Repeat("a", 201), "", 400, "VALIDATION_ERROR", "search"},
			{"search of 49,999 characters", "GET", "/v1/foods?search=" + strings.Repeat("%25", 49999), "", 400, "VALIDATION_ERROR", "search"},
			{"partial filter of 201 characters", "GET", "/v1/operations?name=" + strings.Repeat("é", 201), "", 400, "VALIDATION_ERROR", "name"},
			{"search of 200 characters", "GET", "/v1/foods?search=" + strings.Repeat("%25_", 100), "", 200, "", ""},
			// Quoted input in a refusal stays valid JSON.
			{"unknown parameter named in invalid UTF-8", "GET", "/v1/tags?%FF%00=1", "", 400, "VALIDATION_ERROR", "\uFFFD\uFFFD"},
			{"unknown route with invalid UTF-8", "GET", "/v1/%FF%00", "", 404, "NOT_FOUND", ""},
			// Paths net/http would redirect are answered, not redirected.
			{"the base path without its slash, written to", "POST", "/v1", "{}", 404, "NOT_FOUND", ""},
			{"a dot-dot segment", "PATCH", "/v1/foods/..", "{}", 404, "NOT_FOUND", ""},
			{"a doubled slash", "GET", "/v1//tags", "", 404, "NOT_FOUND", ""},
		}
		op := a.post("/v1/operations", map[string]any{"code": "HYG", "name": "Hygiene"}).want(201).ID()
		for _, tc := range cases {
			a.run(t, tc.name, func(t *testing.T, a *api) {
				r := a.do(tc.method, strings.ReplaceAll(tc.path, "{op}", fmt.Sprint(op)), a.key, nilIfEmpty(tc.body))
				if !json.Valid(r.Body) {
					t.Fatalf("the answer is not valid JSON: %q", r.Body)
				}
				switch {
				case tc.code == "":
					r.want(tc.status)
				case tc.field == "":
					r.problem(tc.status, tc.code)
				default:
					r.field(tc.status, tc.code, tc.field)
				}
			})
		}
	})
}

func nilIfEmpty(body string) any {
	if body == "" {
		return nil
	}
	return body
}

// docs/api-behaviour.md, "Input bounds": within the bounds a decimal comes back digit for
// digit, and what a write answers is what every later read returns, for
// exact columns (cost) and float columns (qty) alike.
func TestDecimalsRoundTrip(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		values := []string{"0.1", "1.5", "100", "0.000001", "99999999999999", "3.25", "123456789.123456",
			"12345678901234.5", "0.3", "1.000001", "7e2", "1.50"}
		numbers := regexp.MustCompile(`"(cost|qty)":(-?[0-9.e+]+|null)`)
		fields := func(r *response) map[string]string {
			out := map[string]string{}
			for _, m := range numbers.FindAllStringSubmatch(string(r.Body), -1) {
				out[m[1]] = m[2]
			}
			return out
		}
		for i, v := range values {
			a.run(t, v, func(t *testing.T, a *api) {
				want := v
				switch v {
				case "7e2":
					want = "700"
				case "1.50":
					want = "1.5"
				}
				created := a.do("POST", "/v1/operations", a.key, fmt.Sprintf(`{"code":"RT%d","name":"n","cost":%s,"qty":%s}`, i, v, v)).want(201)
				id := created.ID()
				updated := a.do("PATCH", path("/v1/operations", id), a.key, fmt.Sprintf(`{"cost":%s,"qty":%s}`, v, v)).want(200)
				read := a.get(path("/v1/operations", id)).want(200)
				listed := a.get("/v1/operations?code=" + fmt.Sprintf("RT%d", i)).want(200)
				for name, r := range map[string]*response{"create": created, "update": updated, "read": read, "list": listed} {
					got := fields(r)
					if got["cost"] != want || got["qty"] != want {
						t.Fatalf("%s answers cost %s and qty %s, want %s: %s", name, got["cost"], got["qty"], want, r.Body)
					}
				}
			})
		}
	})
}

// docs/api-behaviour.md, "Time limits": a client that half-closes its side after sending
// still gets its answer, and a client that goes away is logged as a client
// abort at INFO, never as a server error.
func TestClientAbortIsNotAServerError(t *testing.T) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		var logs lockedBuffer
		cfg := config.Defaults()
		cfg.AuthFailLimit = 1 << 20
		srv, err := handlers.New(st, handlers.Options{Config: cfg, Log: slog.New(slog.NewTextHandler(&logs, nil))})
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(srv)
		defer hs.Close()
		key := dbtest.NewOrg(t, st, "").Key(t, "live", "all")

		conn, err := net.Dial("tcp", hs.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "GET /v1/organization HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nConnection: close\r\n\r\n", key)
		if err := conn.(*net.TCPConn).CloseWrite(); err != nil {
			t.Fatal(err)
		}
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("no answer after a half-close: %v", err)
		}
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 {
			t.Fatalf("half-closed client got %d: %s", res.StatusCode, body)
		}

		// A client that goes away while its write waits for a lock: the write
		// is done all the same, and the line says client_abort at INFO.
		org := dbtest.NewOrg(t, st, "")
		key = org.Key(t, "live", "all")
		tagID := newTag(t, hs.URL, key)
		ctx := context.Background()
		lock, err := st.DB.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		q := "UPDATE tags SET name = name WHERE id = $1"
		if st.Dialect == dialect.SQLite {
			q = "UPDATE tags SET name = name WHERE id = ?"
		}
		if _, err := lock.ExecContext(ctx, q, tagID); err != nil {
			t.Fatal(err)
		}
		gone, err := net.Dial("tcp", hs.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		patch := `{"description":"written after the client left"}`
		fmt.Fprintf(gone, "PATCH /v1/tags/%d HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", tagID, key, len(patch), patch)
		time.Sleep(200 * time.Millisecond) // the request reaches its lock
		gone.Close()
		time.Sleep(100 * time.Millisecond) // the server notices the close
		if err := lock.Commit(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(logs.String(), fmt.Sprintf("path=/v1/tags/%d", tagID)) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		var line string
		for _, l := range strings.Split(logs.String(), "\n") {
			if strings.Contains(l, fmt.Sprintf("method=PATCH path=/v1/tags/%d", tagID)) {
				line = l
			}
		}
		if !strings.Contains(line, "level=INFO") || !strings.Contains(line, "status=200") || !strings.Contains(line, "client_abort=true") {
			t.Fatalf("the abandoned write is not logged as a client abort at INFO with its status:\n%s", logs.String())
		}
		if strings.Contains(logs.String(), "level=ERROR") {
			t.Fatalf("a client going away was logged as an error:\n%s", logs.String())
		}
		got := getJSON(t, hs.URL+fmt.Sprintf("/v1/tags/%d", tagID), key)
		if got["description"] != "written after the client left" {
			t.Fatalf("the write was not done: %v", got)
		}
	})
}

// newTag creates a tag through the API and returns its id.
func newTag(t *testing.T, base, key string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/v1/tags", strings.NewReader(`{"name":"Abandoned","ref_type":"PRODUCT"}`))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out struct{ Data struct{ ID int } }
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode != 201 {
		t.Fatalf("create tag: %d %v", res.StatusCode, err)
	}
	return out.Data.ID
}

// getJSON returns the data object of a GET.
func getJSON(t *testing.T, url, key string) map[string]any {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out struct{ Data map[string]any }
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out.Data
}
