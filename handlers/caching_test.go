package handlers_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"testing"

	"larder.dev/larder/openapi"
)

// docs/api-behaviour.md, "Caching and compression": a GET answer carries a weak ETag; If-None-Match
// with it is 304 without a body until the record changes; a body of 1 KB or
// more is gzip-compressed for a client that accepts it (the description, a
// list) and a small one is not; writes are untouched.
func TestETagAndGzip(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		doc := a.do("GET", "/v1/openapi.json", "", nil, "Accept-Encoding", "gzip").want(200)
		if doc.Header.Get("Content-Encoding") != "gzip" || doc.Header.Get("ETag") == "" || doc.Header.Get("Vary") != "Accept-Encoding" {
			t.Fatalf("description headers: %v", doc.Header)
		}
		zr, err := gzip.NewReader(bytes.NewReader(doc.Body))
		if err != nil {
			t.Fatal(err)
		}
		plain, _ := io.ReadAll(zr)
		if !bytes.Equal(plain, openapi.Document) || len(doc.Body) >= len(plain)/3 {
			t.Fatalf("the compressed description (%d bytes) is not the document (%d bytes)", len(doc.Body), len(plain))
		}
		same := a.do("GET", "/v1/openapi.json", "", nil, "If-None-Match", doc.Header.Get("ETag"))
		if same.Status != 304 || len(same.Body) != 0 {
			t.Fatalf("If-None-Match of the description: %d, %d bytes", same.Status, len(same.Body))
		}
		if plainDoc := a.do("GET", "/v1/openapi.json", "", nil); plainDoc.Header.Get("Content-Encoding") != "" || !bytes.Equal(plainDoc.Body, openapi.Document) {
			t.Fatal("the description was compressed for a client that did not ask")
		}

		id := a.post("/v1/tags", map[string]any{"name": "Etag", "ref_type": "PRODUCT"}).want(201).ID()
		path := path("/v1/tags", id)
		one := a.get(path).want(200)
		tag := one.Header.Get("ETag")
		if tag == "" || one.Header.Get("Content-Encoding") != "" {
			t.Fatalf("a single record: %v", one.Header)
		}
		if r := a.do("GET", path, a.key, nil, "If-None-Match", `"other", `+tag); r.Status != 304 || len(r.Body) != 0 {
			t.Fatalf("If-None-Match naming the tag among others: %d %s", r.Status, r.Body)
		}
		if r := a.do("GET", path, a.key, nil, "If-None-Match", `W/"other"`); r.Status != 200 {
			t.Fatalf("If-None-Match naming another tag: %d", r.Status)
		}
		a.patch(path, map[string]any{"name": "Etag 2"}).want(200)
		changed := a.do("GET", path, a.key, nil, "If-None-Match", tag).want(200)
		if changed.Header.Get("ETag") == tag {
			t.Fatal("the ETag did not change with the record")
		}
		list := a.do("GET", "/v1/countries?limit=100", a.key, nil, "Accept-Encoding", "gzip;q=1.0, br").want(200)
		if list.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("a 100-row list was not compressed: %v", list.Header)
		}
		if r := a.do("GET", "/v1/countries?limit=100", a.key, nil, "Accept-Encoding", "gzip;q=0"); r.Header.Get("Content-Encoding") != "" {
			t.Fatal("gzip;q=0 was compressed")
		}
		if r := a.do("GET", "/v1/tags/999999999", a.key, nil); r.Status != 404 || r.Header.Get("ETag") != "" {
			t.Fatalf("a 404 carries an ETag: %d %v", r.Status, r.Header)
		}
	})
}

// Every answer to a key is private to it: Cache-Control private on reads,
// lists, revalidations (304), writes and refusals, so no shared cache keeps
// one account's data for another; the ETag still revalidates.
func TestAuthenticatedAnswersArePrivate(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		private := func(what string, r *response) {
			t.Helper()
			if got := r.Header.Values("Cache-Control"); len(got) != 1 || got[0] != "private" {
				t.Errorf("%s (%d): Cache-Control %q", what, r.Status, got)
			}
		}
		id := a.post("/v1/tags", map[string]any{"name": "Private", "ref_type": "PRODUCT"}).want(201)
		private("create", id)
		p := path("/v1/tags", id.ID())
		one := a.get(p).want(200)
		private("read", one)
		private("revalidation", a.do("GET", p, a.key, nil, "If-None-Match", one.Header.Get("ETag")).want(304))
		private("list", a.get("/v1/allergens?limit=5").want(200))
		private("update", a.patch(p, map[string]any{"name": "Private 2"}).want(200))
		private("not found", a.get("/v1/tags/999999999").want(404))
		private("invalid", a.get("/v1/tags?limit=999").want(400))
		private("organization", a.get("/v1/organization").want(200))
	})
}
