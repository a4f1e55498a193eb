package docs

import (
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"
)

// description is what the tables of integrators.md are made from: the
// committed OpenAPI description's paths and webhooks.
type description struct {
	Paths    map[string]map[string]json.RawMessage `json:"paths"`
	Webhooks map[string]json.RawMessage            `json:"webhooks"`
}

func readDescription(t *testing.T) description {
	t.Helper()
	b, err := os.ReadFile("../openapi/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var d description
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Paths) < 10 || len(d.Webhooks) < 10 {
		t.Fatalf("the description holds %d paths and %d webhooks; the read is broken", len(d.Paths), len(d.Webhooks))
	}
	return d
}

// eventResource is the event catalogue's name of a collection path's
// resource: /sales-orders is sales_order, /units-of-measure unit_of_measure.
func eventResource(collection string) string {
	name := collection[strings.LastIndexByte(collection, '/')+1:]
	switch {
	case name == "equipment":
	case strings.HasPrefix(name, "units-of-"):
		name = "unit-of-" + strings.TrimPrefix(name, "units-of-")
	case strings.HasSuffix(name, "ies"):
		name = strings.TrimSuffix(name, "ies") + "y"
	default:
		name = strings.TrimSuffix(name, "s")
	}
	return strings.ReplaceAll(name, "-", "_")
}

// capabilityTable is integrators.md's table of what each resource allows,
// from the description: per collection, whether it is listed and read,
// created (POST on it), updated (PATCH on an item), deleted (DELETE on an
// item), the other moves an item takes (POST below it), and the event types
// its changes post.
func capabilityTable(d description) string {
	events := map[string][]string{}
	for typ := range d.Webhooks {
		if res, action, ok := strings.Cut(typ, "."); ok {
			events[res] = append(events[res], action)
		}
	}
	var collections []string
	for p, ops := range d.Paths {
		_, get := ops["get"]
		top := strings.Count(p, "/") == 1
		// A collection: listed (GET), at the top, or below an item with
		// items of its own (a customer's shipping addresses).
		if get && p != "/openapi.json" && !strings.HasSuffix(p, "}") && (top || hasItem(d, p)) {
			collections = append(collections, p)
		}
	}
	sort.Strings(collections)
	yes := func(ok bool) string {
		if ok {
			return "yes"
		}
		return "—"
	}
	var b strings.Builder
	b.WriteString("| resource | list and read | create | update | delete | moves | events |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, c := range collections {
		item := itemOf(d, c)
		var moves []string
		for p, ops := range d.Paths {
			if item != "" && strings.HasPrefix(p, item+"/") && !hasItem(d, p) {
				if _, ok := ops["post"]; ok {
					moves = append(moves, "`POST …"+strings.TrimPrefix(p, item)+"`")
				}
			}
		}
		sort.Strings(moves)
		res := eventResource(c)
		ev := events[res]
		if i := strings.Index(c, "}/"); i >= 0 {
			// A customer's shipping addresses are lines of the customer: a
			// change to one is the customer's update.
			res, ev = eventResource(c[:strings.Index(c[1:], "/")+1]), []string{"updated"}
		}
		sort.Strings(ev)
		evs := "—"
		if len(events[res]) > 0 && len(ev) > 0 {
			evs = "`" + res + ".`: " + strings.Join(ev, ", ")
		}
		_, post := d.Paths[c]["post"]
		_, patch := d.Paths[item]["patch"]
		_, del := d.Paths[item]["delete"]
		mv := "—"
		if len(moves) > 0 {
			mv = strings.Join(moves, ", ")
		}
		b.WriteString("| `" + c + "` | yes | " + yes(post) + " | " + yes(item != "" && patch) + " | " + yes(item != "" && del) + " | " + mv + " | " + evs + " |\n")
	}
	return b.String()
}

// itemOf is the item path below collection c ("" for a single resource such
// as /organization).
func itemOf(d description, c string) string {
	for p := range d.Paths {
		if strings.HasPrefix(p, c+"/{") && strings.HasSuffix(p, "}") && strings.Count(p, "/") == strings.Count(c, "/")+1 {
			return p
		}
	}
	return ""
}

func hasItem(d description, c string) bool { return itemOf(d, c) != "" }

// eventTable is integrators.md's list of event types: every type of the
// description's webhooks by resource, ping last.
func eventTable(d description) string {
	byRes := map[string][]string{}
	for typ := range d.Webhooks {
		res, _, ok := strings.Cut(typ, ".")
		if !ok {
			continue
		}
		byRes[res] = append(byRes[res], "`"+typ+"`")
	}
	var res []string
	for r := range byRes {
		res = append(res, r)
	}
	sort.Strings(res)
	var b strings.Builder
	b.WriteString("| resource | event types |\n|---|---|\n")
	for _, r := range res {
		sort.Strings(byRes[r])
		b.WriteString("| " + r + " | " + strings.Join(byRes[r], ", ") + " |\n")
	}
	if _, ok := d.Webhooks["ping"]; ok {
		b.WriteString("| — | `ping`: the console's test button and `./larder webhook ping` |\n")
	}
	return b.String()
}

// integrators.md's tables of what each resource allows and of the event
// types are the description's, exactly: a resource, a move or an event type
// added to the schemas fails here until the guide says so.
func TestIntegratorsTablesMatchTheDescription(t *testing.T) {
	d := readDescription(t)
	guide, err := os.ReadFile("integrators.md")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"what each resource allows": capabilityTable(d), "event types": eventTable(d)} {
		if !strings.Contains(string(guide), want) {
			t.Errorf("integrators.md's table of %s is not the description's; it should read:\n\n%s", name, want)
		}
	}
	n := 0
	for typ := range d.Webhooks {
		if strings.Contains(string(guide), "`"+typ+"`") {
			n++
		}
	}
	if n != len(d.Webhooks) || n != 61 {
		t.Errorf("integrators.md names %d of the description's %d event types, want all 61 (60 and ping)", n, len(d.Webhooks))
	}
}
