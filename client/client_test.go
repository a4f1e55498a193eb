package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"testing"

	"larder.dev/larder/client"
	"larder.dev/larder/handlers"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// Every list operation of the client decodes (and validates) what the real
// server answers for the seeded test account, on both databases: the client's
// types are the server's answers.
func TestClientReadsEveryList(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		cfg := config.Defaults()
		cfg.RateLimit = 1 << 20
		srv, err := handlers.New(st, handlers.Options{Config: cfg, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(srv)
		defer hs.Close()
		org := dbtest.NewSeededOrg(t, st)
		c, err := client.NewClient(hs.URL+"/v1", client.Key(org.Key(t, policy.Test, "all")))
		if err != nil {
			t.Fatal(err)
		}
		ctx := reflect.ValueOf(context.Background())
		v := reflect.ValueOf(c)
		lists, rows := 0, 0
		for i := 0; i < v.NumMethod(); i++ {
			m := v.Type().Method(i)
			if !strings.HasPrefix(m.Name, "List") || m.Type.NumIn() != 3 {
				continue
			}
			params := reflect.New(m.Type.In(2)).Elem()
			if f := params.FieldByName("RefType"); f.IsValid() { // tags need a kind
				f.SetString(string(client.TagRefTypePRODUCT))
			}
			if f := params.FieldByName("ID"); f.IsValid() || params.NumField() > 0 && strings.HasSuffix(params.Type().Field(0).Name, "ID") {
				continue // nested lists need a parent: read through the example and the handlers' tests
			}
			out := v.Method(i).Call([]reflect.Value{ctx, params})
			if err, _ := out[1].Interface().(error); err != nil {
				var p *client.ProblemStatusCode
				if errors.As(err, &p) {
					t.Errorf("%s: %d %s: %s", m.Name, p.StatusCode, p.Response.Code, p.Response.Detail)
				} else {
					t.Errorf("%s: %v", m.Name, err)
				}
				continue
			}
			lists++
			rows += out[0].Elem().FieldByName("Data").Len()
		}
		if want := topLevelLists(t); lists != want || rows < 300 {
			t.Fatalf("%d lists (want the description's %d) with %d rows read", lists, want, rows)
		}
		t.Logf("%d lists, %d rows", lists, rows)
	})
}

// topLevelLists counts the description's list operations outside a parent.
func topLevelLists(t *testing.T) int {
	b, err := os.ReadFile("../openapi/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for p, item := range doc.Paths {
		if strings.HasPrefix(item["get"].OperationID, "list") && !strings.Contains(p, "{") {
			n++
		}
	}
	return n
}
