package ent_test

import (
	"fmt"
	"strings"
	"testing"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/tag"
	"larder.dev/larder/hooks"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// An update of one row by a tenant reads the row back by its id and the
// account (updateOneStable), where ent reads it by its id alone: every
// statement on tags names the account, the row read back is the updated
// one, and another account's row is not found and stays as it was. The
// system viewer's update, which no tenant filter narrows, reads it back as
// ent does.
func TestUpdateOneReadsBackWithAccount(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		c, statements := observed(t, st)
		mine, theirs := dbtest.NewOrg(t, st, ""), dbtest.NewOrg(t, st, "")
		ctx, theirCtx := hooks.WithoutEvents(mine.Ctx(policy.Test)), hooks.WithoutEvents(theirs.Ctx(policy.Test))
		own, err := st.Client.Tag.Create().SetName("own").SetDescription("kept").SetRefType(tag.RefTypePRODUCT).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		other, err := st.Client.Tag.Create().SetName("other").SetRefType(tag.RefTypePRODUCT).Save(theirCtx)
		if err != nil {
			t.Fatal(err)
		}

		var got *ent.Tag
		sent, err := statements(func() (err error) {
			got, err = c.Tag.UpdateOneID(own.ID).SetName("renamed").Save(ctx)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != own.ID || got.Name != "renamed" || got.Description == nil || *got.Description != "kept" || got.AccountID != own.AccountID {
			t.Errorf("UpdateOne returned %+v, want the renamed tag %d of account %d", got, own.ID, own.AccountID)
		}
		account := fmt.Sprint(own.AccountID)
		var reads int
		for _, s := range sent {
			if !strings.Contains(s, "tags") {
				continue
			}
			if !strings.Contains(s, "account_id") || !strings.Contains(s, account) {
				t.Errorf("statement on tags without the account %s: %s", account, s)
			}
			if strings.HasPrefix(s, "SELECT") {
				reads++
			}
		}
		if reads != 1 {
			t.Errorf("%d reads of tags, want the one read back:\n%s", reads, strings.Join(sent, "\n"))
		}

		if _, err := c.Tag.UpdateOneID(other.ID).SetName("taken").Save(ctx); !ent.IsNotFound(err) {
			t.Errorf("another account's tag: err = %v, want not found", err)
		}
		if e, err := st.Client.Tag.Get(theirCtx, other.ID); err != nil || e.Name != "other" {
			t.Errorf("another account's tag after the refused update: %+v, %v", e, err)
		}

		sys := hooks.WithoutEvents(policy.System(ctx))
		if e, err := c.Tag.UpdateOneID(other.ID).SetName("by the system").Save(sys); err != nil || e.Name != "by the system" || e.AccountID != other.AccountID {
			t.Errorf("the system viewer's update: %+v, %v", e, err)
		}
	})
}
