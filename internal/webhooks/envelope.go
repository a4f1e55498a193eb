package webhooks

import (
	"encoding/json"
	"time"

	"larder.dev/larder/ent"
)

// Envelope is the body of every delivery (docs/api-behaviour.md, "Webhooks").
type Envelope struct {
	ID          string          `json:"id"`
	Type        string          `json:"type"`
	CreatedAt   time.Time       `json:"created_at"`
	Environment string          `json:"environment"`
	Source      string          `json:"source"`
	APIKeyID    *int            `json:"api_key_id,omitempty"`
	RequestID   *string         `json:"request_id,omitempty"`
	UserID      *int            `json:"user_id,omitempty"`
	Resource    Resource        `json:"resource"`
	Snapshot    json.RawMessage `json:"snapshot"`
}

// Resource names the record an event is about (the parent for a line change).
type Resource struct {
	Type string `json:"type"`
	ID   int    `json:"id"`
}

// EnvelopeOf is the envelope of an outbox event. It depends on the event alone,
// so every retry and resend sends the same bytes.
func EnvelopeOf(e *ent.Event) ([]byte, error) {
	snap := e.Snapshot
	if len(snap) == 0 {
		snap = json.RawMessage("{}")
	}
	return json.Marshal(Envelope{
		ID:          e.EventID,
		Type:        e.Type,
		CreatedAt:   e.CreatedAt.UTC(),
		Environment: string(e.Environment),
		Source:      string(e.Source),
		APIKeyID:    e.APIKeyID,
		RequestID:   e.RequestID,
		UserID:      e.UserID,
		Resource:    Resource{Type: e.ResourceType, ID: e.ResourceID},
		Snapshot:    snap,
	})
}
