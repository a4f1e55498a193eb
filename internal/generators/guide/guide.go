// Package guide writes the tables of the integrators' guide
// (docs/integrators.md) that the API description decides: what each resource
// allows, and the event types with their count. go generate writes them with
// the description (codegen.BuildSpec); docs' tests check that the guide holds
// them.
package guide

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// description is what the tables of integrators.md are made from: the
// committed OpenAPI description's paths and webhooks.
type description struct {
	Paths    map[string]map[string]json.RawMessage `json:"paths"`
	Webhooks map[string]json.RawMessage            `json:"webhooks"`
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

// Tables are the guide's tables made from the description (openapi.json).
type Tables struct {
	// Capabilities is the table of what each resource allows.
	Capabilities string
	// Events is the table of event types.
	Events string
	// Count is the sentence's start that counts them: "60 event types over
	// 17 resources".
	Count string
}

// Make reads the tables from the published description.
func Make(openapi []byte) (Tables, error) {
	var d description
	if err := json.Unmarshal(openapi, &d); err != nil {
		return Tables{}, fmt.Errorf("guide: the description: %w", err)
	}
	if len(d.Paths) == 0 {
		return Tables{}, fmt.Errorf("guide: the description has no paths")
	}
	types, res := 0, map[string]bool{}
	for typ := range d.Webhooks {
		if r, _, ok := strings.Cut(typ, "."); ok {
			types++
			res[r] = true
		}
	}
	return Tables{Capabilities: capabilityTable(d), Events: eventTable(d),
		Count: fmt.Sprintf("%d event types over %d resources", types, len(res))}, nil
}

// countSentence finds the count of event types in the guide.
var countSentence = regexp.MustCompile(`\d+ event types over \d+ resources`)

// Write puts the tables into the guide's text in place of the ones it holds
// (each found by its header row) and the count in place of its count.
func (ts Tables) Write(guide string) (string, error) {
	for _, t := range []string{ts.Capabilities, ts.Events} {
		header := t[:strings.IndexByte(t, '\n')+1]
		i := strings.Index(guide, "\n"+header)
		if i < 0 {
			return "", fmt.Errorf("guide: no table starting %q", strings.TrimSpace(header))
		}
		i++
		j := i
		for j < len(guide) && guide[j] == '|' {
			k := strings.IndexByte(guide[j:], '\n')
			if k < 0 {
				j = len(guide)
				break
			}
			j += k + 1
		}
		guide = guide[:i] + t + guide[j:]
	}
	if len(countSentence.FindAllStringIndex(guide, -1)) != 1 {
		return "", fmt.Errorf("guide: want one sentence counting the event types (%q)", countSentence)
	}
	return countSentence.ReplaceAllLiteralString(guide, ts.Count), nil
}
