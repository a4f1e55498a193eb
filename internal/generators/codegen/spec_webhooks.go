package codegen

// The webhooks section: one operation per event type, with its envelope and snapshot.

import (
	"encoding/json"
	"strings"

	"github.com/ogen-go/ogen"
)

// webhooks publishes every event type of the catalogue (eventCatalogue), each
// resource's with its generated snapshot schema.
func (b *specBuilder) webhooks(rs []*Resource) error {
	cat, err := eventCatalogue(rs)
	if err != nil {
		return err
	}
	sc := b.schemas()
	sc["EventSource"] = ogen.String().
		SetDescription("What caused the change: an API call, an action in the web application, or the system.").
		AsEnum(nil, json.RawMessage(`"api"`), json.RawMessage(`"app"`), json.RawMessage(`"system"`))
	b.spec.Webhooks = map[string]*ogen.PathItem{}
	byEvent := map[string]*Resource{}
	for _, r := range rs {
		if len(r.Ann.Events) > 0 {
			byEvent[r.Event] = r
		}
	}
	for _, c := range cat {
		var types []json.RawMessage
		for _, a := range c.Actions {
			types = append(types, json.RawMessage(`"`+c.Resource+"."+a+`"`))
		}
		snapshot := ref(byEvent[c.Resource].Schema + "Snapshot")
		event := pascal(c.Resource) + "Event"
		sc[event] = envelope(c.Resource, ogen.String().AsEnum(nil, types...), snapshot)
		for _, a := range c.Actions {
			t := c.Resource + "." + a
			b.spec.Webhooks[t] = webhook(t, pascal(strings.ReplaceAll(t, ".", "_")), "`"+t+"`: "+eventDoc(t), event)
		}
	}
	sc["PingEvent"] = envelope("ping", ogen.String().AsEnum(nil, json.RawMessage(`"ping"`)),
		ogen.NewSchema().AddRequiredProperties(ogen.Int().SetDescription("The endpoint pinged.").ToProperty("endpoint_id")))
	b.spec.Webhooks["ping"] = webhook("ping", "Ping", "`ping`: sent by the test button to the endpoint's real URL.", "PingEvent")
	return nil
}

// exampleEventID is the event id the examples show.
const exampleEventID = "evt_01KAZ3R6N5V0E3H1ZB3W0M6Q2E"

func envelope(resource string, typ, snapshot *ogen.Schema) *ogen.Schema {
	return ogen.NewSchema().
		SetDescription("Webhook envelope. Deduplicate by id; the snapshot is a routing aid, not the record.").
		AddRequiredProperties(
			example(ogen.String().SetDescription("Event id (evt_…), equal to the webhook-id header on every retry and resend."), `"`+exampleEventID+`"`).ToProperty("id"),
			typ.SetDescription("Event type.").ToProperty("type"),
			ogen.DateTime().SetDescription("When the change was committed (UTC).").ToProperty("created_at"),
			ref("Environment").ToProperty("environment"),
			ref("EventSource").ToProperty("source"),
			ogen.NewSchema().SetDescription("The record the event is about (the parent document for a line change).").
				AddRequiredProperties(
					ogen.String().AsEnum(nil, json.RawMessage(`"`+resource+`"`)).ToProperty("type"),
					ogen.Int().ToProperty("id"),
				).ToProperty("resource"),
			snapshot.ToProperty("snapshot"),
		).
		AddOptionalProperties(
			ogen.Int().SetDescription("Key of the API call that caused the change (source api).").ToProperty("api_key_id"),
			example(ogen.String().SetDescription("Request id of the API call that caused the change (source api)."), `"`+exampleRequestID+`"`).ToProperty("request_id"),
			ogen.Int().SetDescription("The person who made the change in the web application (source app); absent for the admin CLI and the system.").ToProperty("user_id"),
		)
}

func webhook(typ, id, desc, schema string) *ogen.PathItem {
	return ogen.NewPathItem().SetPost(ogen.NewOperation().
		SetOperationID("on" + id).
		SetSummary(typ).
		SetDescription(desc + " Signed with the Standard Webhooks scheme (webhook-id, webhook-timestamp, webhook-signature).").
		AddTags("Webhooks").
		SetRequestBody(ogen.NewRequestBody().SetRequired(true).SetJSONContent(ref(schema))).
		SetResponses(ogen.Responses{"200": ogen.NewResponse().SetDescription("Any 2xx acknowledges the delivery; anything else, or no answer within 15 seconds, is retried.")}))
}

func eventDoc(t string) string {
	res, action, _ := strings.Cut(t, ".")
	return strings.ReplaceAll(res, "_", " ") + " " + strings.ReplaceAll(action, "_", " ") + "."
}

func updateDoc(r *Resource) string {
	d := "Body of an update: omitted fields are unchanged."
	if im := r.Immutables(); len(im) > 0 {
		names := make([]string, len(im))
		for i, f := range im {
			names[i] = f.Name
		}
		d += " " + strings.Join(names, ", ") + " cannot change (400)."
	}
	return d
}
