// Package audit records who changed an organization's keys, webhook endpoints,
// people, plan and settings, and its test data, and who signed in to its
// console or failed to, when, and from where. A
// record is written in the transaction of the change it describes, so a
// change without its record (or a record without its change) cannot exist.
// The actor is named by whoever acts (the admin CLI's --actor, or the
// signed-in person in the console) and travels in the context with the
// client address it acts from.
package audit

import (
	"context"
	"errors"
	"fmt"
	"time"

	"entgo.io/ent/dialect/sql"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/auditrecord"
	"larder.dev/larder/ent/organization"
	"larder.dev/larder/policy"
)

// The recorded actions.
const (
	KeyCreated  = auditrecord.ActionKeyCreated
	KeyRotated  = auditrecord.ActionKeyRotated
	KeyRevoked  = auditrecord.ActionKeyRevoked
	PlanChanged = auditrecord.ActionPlanChanged
	// SettingsChanged records a change of an organization's settings.
	SettingsChanged = auditrecord.ActionSettingsChanged

	EndpointCreated       = auditrecord.ActionEndpointCreated
	EndpointUpdated       = auditrecord.ActionEndpointUpdated
	EndpointDisabled      = auditrecord.ActionEndpointDisabled
	EndpointEnabled       = auditrecord.ActionEndpointEnabled
	EndpointDeleted       = auditrecord.ActionEndpointDeleted
	EndpointSecretRotated = auditrecord.ActionEndpointSecretRotated
	// DeliveriesResent records a resend of one delivery or of every failed
	// delivery of an endpoint since a time.
	DeliveriesResent = auditrecord.ActionDeliveriesResent

	UserInvited         = auditrecord.ActionUserInvited
	UserRoleChanged     = auditrecord.ActionUserRoleChanged
	UserRemoved         = auditrecord.ActionUserRemoved
	PasswordResetIssued = auditrecord.ActionPasswordResetIssued
	PasswordSet         = auditrecord.ActionPasswordSet
	SecondFactorEnabled = auditrecord.ActionSecondFactorEnabled
	// SecondFactorDisabled records a person's second factor removed (by
	// themselves or by an admin).
	SecondFactorDisabled = auditrecord.ActionSecondFactorDisabled

	// The console's sign-ins: a person signed in (by password, second
	// factor or one-time link) or out; a wrong password or second-factor
	// code given for a person (the actor is the address tried, with no
	// signed-in person); a second factor locked after too many wrong codes,
	// and unlocked by an admin.
	SignedIn             = auditrecord.ActionSignedIn
	SignInFailed         = auditrecord.ActionSignInFailed
	SecondFactorFailed   = auditrecord.ActionSecondFactorFailed
	SecondFactorLocked   = auditrecord.ActionSecondFactorLocked
	SecondFactorUnlocked = auditrecord.ActionSecondFactorUnlocked
	SignedOut            = auditrecord.ActionSignedOut

	// RecoveryCodesGenerated records a person's ten recovery codes made
	// (with the second factor, or on demand in place of the old set), and
	// RecoveryCodeUsed one of them signing the person in.
	RecoveryCodesGenerated = auditrecord.ActionRecoveryCodesGenerated
	RecoveryCodeUsed       = auditrecord.ActionRecoveryCodeUsed
	// SignatureFailed records a wrong password given to sign a decision (a
	// production run, a lot's release): nothing was signed.
	SignatureFailed = auditrecord.ActionSignatureFailed

	// TestDataReset records the test account's business data replaced by a
	// fresh seed.
	TestDataReset = auditrecord.ActionTestDataReset

	// The plant's actions in an account (Entry.Env names it): approvals,
	// quality decisions, the floor, cancellations and imports.
	SupplierApprovalChanged      = auditrecord.ActionSupplierApprovalChanged
	SupplierCertificationChanged = auditrecord.ActionSupplierCertificationChanged
	LotQCDecided                 = auditrecord.ActionLotQcDecided
	ProductionPlanned            = auditrecord.ActionProductionPlanned
	ProductionStarted            = auditrecord.ActionProductionStarted
	ProductionCompleted          = auditrecord.ActionProductionCompleted
	ProductionSigned             = auditrecord.ActionProductionSigned
	InvoiceCancelled             = auditrecord.ActionInvoiceCancelled
	BillCancelled                = auditrecord.ActionBillCancelled
	ProductsImported             = auditrecord.ActionProductsImported
	ReferenceListImported        = auditrecord.ActionReferenceListImported
)

// SystemActor is the actor of changes made without one named: Larder itself
// (the demo organization of serve --demo) and test fixtures.
const SystemActor = "system"

type actorKey struct{}

type userKey struct{}

// WithUser returns ctx naming the signed-in person (a user id) who acts:
// the records written under it carry it beside the actor's address.
func WithUser(ctx context.Context, id int) context.Context {
	return context.WithValue(ctx, userKey{}, id)
}

// User is the person ctx names, 0 for none (the admin CLI, the system).
func User(ctx context.Context) int {
	id, _ := ctx.Value(userKey{}).(int)
	return id
}

type addressKey struct{}

// WithAddress returns ctx naming addr (a client address) as where the
// changes made with it come from.
func WithAddress(ctx context.Context, addr string) context.Context {
	return context.WithValue(ctx, addressKey{}, addr)
}

// Address is the client address of ctx, empty when none was named (the CLI).
func Address(ctx context.Context) string {
	a, _ := ctx.Value(addressKey{}).(string)
	return a
}

// WithActor returns ctx naming actor as the one making the changes made with it.
func WithActor(ctx context.Context, actor string) context.Context {
	return context.WithValue(ctx, actorKey{}, actor)
}

// Actor is the actor of ctx, SystemActor when none was named.
func Actor(ctx context.Context) string {
	if a, _ := ctx.Value(actorKey{}).(string); a != "" {
		return a
	}
	return SystemActor
}

// Entry is one change to record.
type Entry struct {
	OrganizationID int
	Action         auditrecord.Action
	// KeyID names the key acted on (key actions only).
	KeyID int
	// Env is the environment acted in: the key's, or the account's of a
	// plant's action.
	Env policy.Environment
	// At is when the change was made.
	At time.Time
	// Detail holds the particulars (the new key of a rotation, the old plan, …).
	Detail map[string]any
}

// Record writes e in tx, as the actor of ctx. Call it in the transaction of
// the change; tx must run as the system viewer.
func Record(ctx context.Context, tx *ent.Tx, e Entry) error {
	c := tx.AuditRecord.Create().
		SetOrganizationID(e.OrganizationID).
		SetAction(e.Action).
		SetActor(Actor(ctx)).
		SetAddress(truncate(Address(ctx), 64)).
		SetCreatedAt(e.At.UTC().Truncate(time.Microsecond))
	if e.KeyID != 0 {
		c.SetAPIKeyID(e.KeyID)
	}
	if e.Env != "" {
		c.SetEnvironment(auditrecord.Environment(e.Env))
	}
	if u := User(ctx); u != 0 {
		c.SetUserID(u)
	}
	if e.Detail != nil {
		c.SetDetail(e.Detail)
	}
	if err := c.Exec(ctx); err != nil {
		return fmt.Errorf("record %s: %w", e.Action, err)
	}
	return nil
}

// truncate cuts s to at most n bytes.
func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// Listed is a record as the history shows it.
type Listed struct {
	ID    int       `json:"id"`
	At    time.Time `json:"at"`
	Actor string    `json:"actor"`
	// Address is the client address of a console change, empty for the CLI.
	Address string  `json:"address"`
	Action  string  `json:"action"`
	KeyID   *int    `json:"key_id"`
	Env     *string `json:"env"`
	// UserID is the signed-in person of a console change, nil for the CLI.
	UserID *int           `json:"user_id"`
	Detail map[string]any `json:"detail"`
}

// History returns the records of an organization in the order they were
// written (ids come from one sequence), oldest first.
func History(ctx context.Context, c *ent.Client, orgID int) ([]Listed, error) {
	// System viewer: the audit history is system-only.
	ctx = policy.System(ctx)
	found, err := c.Organization.Query().Where(organization.ID(orgID)).Exist(ctx)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("organization %d does not exist", orgID)
	}
	recs, err := c.AuditRecord.Query().
		Where(auditrecord.OrganizationID(orgID)).
		Order(auditrecord.ByID()).
		All(ctx)
	if err != nil {
		return nil, err
	}
	return listed(recs), nil
}

// listed is recs as the history shows them.
func listed(recs []*ent.AuditRecord) []Listed {
	out := make([]Listed, len(recs))
	for i, r := range recs {
		out[i] = Listed{ID: r.ID, At: r.CreatedAt, Actor: r.Actor, Address: r.Address, Action: string(r.Action), KeyID: r.APIKeyID, UserID: r.UserID, Detail: r.Detail}
		if r.Detail == nil {
			out[i].Detail = map[string]any{}
		}
		if r.Environment != nil {
			env := string(*r.Environment)
			out[i].Env = &env
		}
	}
	return out
}

// Page sizes of Recent: a page holds DefaultPageSize records unless asked
// for fewer, and never more than MaxPageSize, so one request reads a bounded
// part of a history that only grows.
const (
	DefaultPageSize = 50
	MaxPageSize     = 200
)

// Filter chooses the records of a page of the history.
type Filter struct {
	// Action is the one action to show; empty shows every action.
	Action string
	// Actor is the one actor to show (exactly as recorded); empty shows all.
	Actor string
	// Before shows records older than the record of this id (the Next of
	// the page before); 0 starts at the newest.
	Before int
	// Limit is the page's size: 0 means DefaultPageSize, more than
	// MaxPageSize means MaxPageSize.
	Limit int
}

// ErrUnknownAction is a filter naming an action that is not recorded.
var ErrUnknownAction = errors.New("no such action in the audit history")

// Actions are the names of the recorded actions, grouped as the constants
// above are (keys, plan and settings, endpoints, people, sign-ins, test
// data), for
// screens that filter by action.
func Actions() []string {
	acts := []auditrecord.Action{
		KeyCreated, KeyRotated, KeyRevoked, PlanChanged, SettingsChanged,
		EndpointCreated, EndpointUpdated, EndpointDisabled, EndpointEnabled, EndpointDeleted, EndpointSecretRotated, DeliveriesResent,
		UserInvited, UserRoleChanged, UserRemoved, PasswordResetIssued, PasswordSet, SecondFactorEnabled, SecondFactorDisabled,
		SignedIn, SignInFailed, SecondFactorFailed, SecondFactorLocked, SecondFactorUnlocked, SignedOut,
		RecoveryCodesGenerated, RecoveryCodeUsed, SignatureFailed,
		TestDataReset,
		SupplierApprovalChanged, SupplierCertificationChanged, LotQCDecided,
		ProductionPlanned, ProductionStarted, ProductionCompleted, ProductionSigned,
		InvoiceCancelled, BillCancelled, ProductsImported, ReferenceListImported,
	}
	out := make([]string, len(acts))
	for i, a := range acts {
		out[i] = string(a)
	}
	return out
}

// Recent returns a page of an organization's history, newest first, chosen
// by f, and the Before of the next (older) page: 0 when there is none.
func Recent(ctx context.Context, c *ent.Client, orgID int, f Filter) ([]Listed, int, error) {
	// System viewer: the audit history is system-only; the explicit
	// organization predicate keeps other organizations' records out.
	ctx = policy.System(ctx)
	if f.Action != "" && auditrecord.ActionValidator(auditrecord.Action(f.Action)) != nil {
		return nil, 0, ErrUnknownAction
	}
	limit := f.Limit
	if limit <= 0 {
		limit = DefaultPageSize
	}
	limit = min(limit, MaxPageSize)
	found, err := c.Organization.Query().Where(organization.ID(orgID)).Exist(ctx)
	if err != nil {
		return nil, 0, err
	}
	if !found {
		return nil, 0, fmt.Errorf("organization %d does not exist", orgID)
	}
	q := c.AuditRecord.Query().Where(auditrecord.OrganizationID(orgID))
	if f.Action != "" {
		q.Where(auditrecord.ActionEQ(auditrecord.Action(f.Action)))
	}
	if f.Actor != "" {
		q.Where(auditrecord.Actor(f.Actor))
	}
	if f.Before > 0 {
		q.Where(auditrecord.IDLT(f.Before))
	}
	// One more than the page tells whether an older page exists.
	recs, err := q.Order(auditrecord.ByID(sql.OrderDesc())).Limit(limit + 1).All(ctx)
	if err != nil {
		return nil, 0, err
	}
	next := 0
	if len(recs) > limit {
		recs = recs[:limit]
		next = recs[limit-1].ID
	}
	return listed(recs), next, nil
}
