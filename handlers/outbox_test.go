package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/apikey"
	"larder.dev/larder/ent/event"
	"larder.dev/larder/internal/webhooks"
	"larder.dev/larder/policy"
)

// docs/api-behaviour.md, "Webhooks": every create, update and delete writes its event in
// the same transaction, with source api, the key and the request id; the
// snapshot holds the record's fields without cost fields.
func TestEventsOfWrites(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		sys := policy.System(context.Background())
		keyID := a.st.Client.APIKey.Query().Where(apikey.SecretHash(hash(a.key))).OnlyIDX(sys)
		events := func() []*ent.Event {
			return a.st.Client.Event.Query().Where(event.AccountID(a.org.Live.ID)).Order(event.ByID()).AllX(sys)
		}
		type write struct {
			method, path string
			body         any
			event        string
		}
		var ids = map[string]int{}
		steps := []write{
			{"POST", "/v1/tags", map[string]any{"name": "A", "ref_type": "PRODUCT"}, "tag.created"},
			{"POST", "/v1/units-of-measure", map[string]any{"code": "u", "name": "U", "weight_in_grams": 1}, "unit_of_measure.created"},
			{"POST", "/v1/allergens", map[string]any{"name": "A", "name_fr": "A"}, "allergen.created"},
			{"POST", "/v1/warehouses", map[string]any{"code": "W", "name": "W"}, "warehouse.created"},
			{"POST", "/v1/operations", map[string]any{"code": "O", "name": "O", "cost": 9.5}, "operation.created"},
		}
		for _, s := range steps {
			a.run(t, s.event, func(t *testing.T, a *api) {
				before := len(events())
				r := a.do(s.method, s.path, a.key, s.body).want(201)
				id := r.ID()
				ids[s.path] = id
				evs := events()
				if len(evs) != before+1 {
					t.Fatalf("%d events written, want 1", len(evs)-before)
				}
				e := evs[len(evs)-1]
				if e.Type != s.event || e.ResourceID != id || e.Source != event.SourceAPI || e.Environment != event.EnvironmentLive ||
					e.APIKeyID == nil || *e.APIKeyID != keyID || e.RequestID == nil || *e.RequestID != r.Header.Get("X-Request-Id") {
					t.Fatalf("event %+v", e)
				}
				var snap map[string]any
				if err := json.Unmarshal(e.Snapshot, &snap); err != nil {
					t.Fatal(err)
				}
				data := r.Data()
				delete(data, "cost")
				if diff := cmpDiff(data, snap); diff != "" {
					t.Fatalf("snapshot (-response without cost +snapshot):\n%s", diff)
				}
			})
		}
		a.run(t, "updates and deletes", func(t *testing.T, a *api) {
			for coll, id := range ids {
				a.patch(path(coll, id), map[string]any{"name": "Renamed"}).want(200)
				a.del(path(coll, id)).want(200)
			}
			counts := map[string]int{}
			for _, e := range events() {
				counts[e.Type]++
			}
			for _, r := range []string{"tag", "unit_of_measure", "allergen", "warehouse", "operation"} {
				for _, action := range []string{"created", "updated", "deleted"} {
					if counts[r+"."+action] != 1 {
						t.Fatalf("%d %s.%s events, want 1 (all: %v)", counts[r+"."+action], r, action, counts)
					}
				}
			}
		})
		// The snapshot is stored as restapi.Snapshot wrote it, not marshalled
		// again (ent's field.JSON would escape it for HTML); the envelope a
		// webhook delivers escapes it as encoding/json does, as before.
		a.run(t, "snapshot stored as written", func(t *testing.T, a *api) {
			id := a.post("/v1/tags", map[string]any{"name": "Fish & <Chips>", "ref_type": "PRODUCT"}).want(201).ID()
			e := events()[len(events())-1]
			if e.ResourceID != id || !bytes.Contains(e.Snapshot, []byte(`"name":"Fish & <Chips>"`)) {
				t.Fatalf("event of tag %d: snapshot %s", e.ResourceID, e.Snapshot)
			}
			env, err := webhooks.EnvelopeOf(e)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(env, []byte(`"name":"Fish \u0026 \u003cChips\u003e"`)) {
				t.Fatalf("envelope %s", env)
			}
		})
		// Who made a change: an API call's key and request, a person's user
		// id in the web application, nothing more for the admin CLI.
		a.run(t, "who made the change", func(t *testing.T, a *api) {
			type who struct {
				Source    string  `json:"source"`
				APIKeyID  *int    `json:"api_key_id"`
				RequestID *string `json:"request_id"`
				UserID    *int    `json:"user_id"`
			}
			last := func() who {
				t.Helper()
				env, err := webhooks.EnvelopeOf(events()[len(events())-1])
				if err != nil {
					t.Fatal(err)
				}
				var w who
				if err := json.Unmarshal(env, &w); err != nil {
					t.Fatal(err)
				}
				return w
			}
			r := a.post("/v1/tags", map[string]any{"name": "By key", "ref_type": "PRODUCT"}).want(201)
			reqID := r.Header.Get("X-Request-Id")
			if got := last(); got.Source != "api" || got.APIKeyID == nil || *got.APIKeyID != keyID || got.RequestID == nil || *got.RequestID != reqID || got.UserID != nil {
				t.Errorf("an API write: %+v", got)
			}
			tag := func(ctx context.Context, name string) {
				t.Helper()
				if err := ent.RunInTx(ctx, a.st.Client, func(tx *ent.Tx) error {
					return tx.Tag.Create().SetName(name).SetRefType("PRODUCT").Exec(ctx)
				}); err != nil {
					t.Fatal(err)
				}
			}
			tag(policy.App(context.Background(), a.org.Live.ID, policy.Live), "By the CLI")
			if got := last(); got.Source != "app" || got.APIKeyID != nil || got.RequestID != nil || got.UserID != nil {
				t.Errorf("a CLI write: %+v", got)
			}
			tag(policy.AppUser(context.Background(), a.org.Live.ID, policy.Live, 4242), "By a person")
			if got := last(); got.Source != "app" || got.APIKeyID != nil || got.RequestID != nil || got.UserID == nil || *got.UserID != 4242 {
				t.Errorf("a person's write: %+v", got)
			}
		})
		a.run(t, "failed writes leave no event", func(t *testing.T, a *api) {
			before := len(events())
			a.post("/v1/tags", map[string]any{"name": "B", "ref_type": "PRODUCT"}).want(201)
			a.post("/v1/tags", map[string]any{"name": "B", "ref_type": "PRODUCT"}).problem(409, "DUPLICATE")
			a.post("/v1/operations", map[string]any{"code": "X", "name": "X", "unit_of_measure_id": 987654}).problem(400, "VALIDATION_ERROR")
			if n := len(events()) - before; n != 1 {
				t.Fatalf("%d events, want only the successful create's", n)
			}
		})
	})
}
