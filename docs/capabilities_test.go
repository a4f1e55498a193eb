package docs

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"larder.dev/larder/internal/generators/guide"
)

// integrators.md's tables of what each resource allows and of the event
// types, and its count of the event types, are the description's, exactly:
// go generate writes them (package guide) with the description, so a
// resource, a move or an event type added to the schemas is in the guide
// once generated, and a hand edit of the tables fails here.
func TestIntegratorsTablesMatchTheDescription(t *testing.T) {
	openapi, err := os.ReadFile("../openapi/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Webhooks map[string]json.RawMessage `json:"webhooks"`
	}
	if err := json.Unmarshal(openapi, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Webhooks) < 10 {
		t.Fatalf("the description holds %d webhooks; the read is broken", len(d.Webhooks))
	}
	ts, err := guide.Make(openapi)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("integrators.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for name, want := range map[string]string{"what each resource allows": ts.Capabilities, "event types": ts.Events, "count of event types": ts.Count} {
		if !strings.Contains(text, want) {
			t.Errorf("integrators.md's %s is not the description's (go generate ./... writes it); it should read:\n\n%s", name, want)
		}
	}
	if again, err := ts.Write(text); err != nil || again != text {
		t.Errorf("integrators.md is not what go generate writes (%v)", err)
	}
	n := 0
	for typ := range d.Webhooks {
		if strings.Contains(text, "`"+typ+"`") {
			n++
		}
	}
	if n != len(d.Webhooks) {
		t.Errorf("integrators.md names %d of the description's %d event types, want all", n, len(d.Webhooks))
	}
}

// The guide's tables are rewritten in place: the rest of the text stays,
// and a guide without a table's header row is refused.
func TestGuideWriteReplacesTheTables(t *testing.T) {
	ts := guide.Tables{Capabilities: "| resource | allows |\n|---|---|\n| `/tags` | yes |\n", Events: "| resource | event types |\n|---|---|\n| tag | `tag.created` |\n", Count: "1 event types over 1 resources"}
	in := "# Guide\n\nBefore.\n\n| resource | allows |\n|---|---|\n| `/old` | no |\n\nMiddle: 9 event types over 9 resources.\n\n| resource | event types |\n|---|---|\n| old | `old.gone` |\n"
	got, err := ts.Write(in)
	want := "# Guide\n\nBefore.\n\n" + ts.Capabilities + "\nMiddle: 1 event types over 1 resources.\n\n" + ts.Events
	if err != nil || got != want {
		t.Fatalf("Write: %v\n%s\nwant:\n%s", err, got, want)
	}
	if _, err := ts.Write("# Guide\n"); err == nil {
		t.Fatal("Write filled a guide without the tables")
	}
}
