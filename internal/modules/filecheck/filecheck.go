// Package filecheck keeps the files the console checked for import until
// they are imported. A checked file is a row of the database, not of one
// server's memory: the check and its import may reach different servers,
// and a restart between them loses nothing. Every function names the
// organization and the person the file belongs to, and finds nothing of
// another's.
package filecheck

import (
	"context"
	"errors"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/importcheck"
	"larder.dev/larder/ent/predicate"
	"larder.dev/larder/policy"
)

// Lifetime is how long a checked file waits for its import: long enough to
// read the check and decide, short enough that the account it was checked
// against has not moved far (the import checks it again regardless).
const Lifetime = time.Hour

// MaxWaiting is the most files a person keeps waiting at once; a new check
// drops their oldest beyond it.
const MaxWaiting = 10

// File is a checked file.
type File struct {
	ID int
	// Env is the environment whose account the file was checked against.
	Env policy.Environment
	// List is "products" or a reference list's name; Format "csv" or
	// "jsonl".
	List, Format string
	// Name is the file's name as the browser sent it.
	Name string
	// SHA256 is the hex SHA-256 of Content.
	SHA256    string
	Content   []byte
	ExpiresAt time.Time
}

var (
	// ErrNotFound is a checked file that is not waiting for this person:
	// imported already, discarded, pruned after it expired, or never theirs.
	ErrNotFound = errors.New("no such checked file waiting")
	// ErrExpired is a checked file whose Lifetime has passed.
	ErrExpired = errors.New("the checked file expired")
)

// systemCtx is ctx as the system viewer, which every function of the package
// runs as.
func systemCtx(ctx context.Context) context.Context {
	// System viewer: checked files are system-only; every function names the organization and person it acts for and finds nothing outside them.
	return policy.System(ctx)
}

// Keep stores f, checked at now by person userID of organization orgID,
// until now+Lifetime, and returns it with its id and end. The same file
// checked again for the same list and environment replaces the earlier
// check; expired files of everyone are pruned on the way.
func Keep(ctx context.Context, c *ent.Client, orgID, userID int, f File, now time.Time) (File, error) {
	ctx = systemCtx(ctx)
	f.ExpiresAt = now.Add(Lifetime)
	err := ent.RunInTx(ctx, c, func(tx *ent.Tx) error {
		if _, err := tx.ImportCheck.Delete().Where(importcheck.ExpiresAtLTE(now)).Exec(ctx); err != nil {
			return err
		}
		mine := []predicate.ImportCheck{importcheck.OrganizationID(orgID), importcheck.UserID(userID)}
		same := append(mine, importcheck.EnvironmentEQ(importcheck.Environment(f.Env)), importcheck.List(f.List), importcheck.Sha256(f.SHA256))
		if _, err := tx.ImportCheck.Delete().Where(same...).Exec(ctx); err != nil {
			return err
		}
		row, err := tx.ImportCheck.Create().
			SetOrganizationID(orgID).
			SetUserID(userID).
			SetEnvironment(importcheck.Environment(f.Env)).
			SetList(f.List).
			SetFormat(importcheck.Format(f.Format)).
			SetFileName(f.Name).
			SetSha256(f.SHA256).
			SetContent(f.Content).
			SetCreatedAt(now).
			SetExpiresAt(f.ExpiresAt).
			Save(ctx)
		if err != nil {
			return err
		}
		f.ID = row.ID
		old, err := tx.ImportCheck.Query().Where(mine...).
			Order(ent.Desc(importcheck.FieldID)).Offset(MaxWaiting).IDs(ctx)
		if err != nil || len(old) == 0 {
			return err
		}
		_, err = tx.ImportCheck.Delete().Where(importcheck.IDIn(old...)).Exec(ctx)
		return err
	})
	if err != nil {
		return File{}, err
	}
	return f, nil
}

// Take consumes checked file id of person userID of organization orgID in
// tx, which imports it: once tx commits, the file is gone, so a second
// import of it finds nothing (ErrNotFound), even one racing this one. A
// file of another person or organization is ErrNotFound; one past its end
// at now is ErrExpired and stays until pruned.
func Take(ctx context.Context, tx *ent.Tx, orgID, userID, id int, now time.Time) (File, error) {
	ctx = systemCtx(ctx)
	row, err := tx.ImportCheck.Query().
		Where(importcheck.ID(id), importcheck.OrganizationID(orgID), importcheck.UserID(userID)).
		Only(ctx)
	if ent.IsNotFound(err) {
		return File{}, ErrNotFound
	}
	if err != nil {
		return File{}, err
	}
	if !row.ExpiresAt.After(now) {
		return File{}, ErrExpired
	}
	// The delete decides between two imports of the file: the second waits
	// for the first's transaction and then deletes nothing.
	n, err := tx.ImportCheck.Delete().Where(importcheck.ID(row.ID)).Exec(ctx)
	if err != nil {
		return File{}, err
	}
	if n != 1 {
		return File{}, ErrNotFound
	}
	return File{ID: row.ID, Env: policy.Environment(row.Environment), List: row.List, Format: string(row.Format),
		Name: row.FileName, SHA256: row.Sha256, Content: row.Content, ExpiresAt: row.ExpiresAt}, nil
}

// Discard deletes checked file id of person userID of organization orgID:
// an import found it no longer fits the account, so it is checked again.
func Discard(ctx context.Context, c *ent.Client, orgID, userID, id int) error {
	ctx = systemCtx(ctx)
	_, err := c.ImportCheck.Delete().
		Where(importcheck.ID(id), importcheck.OrganizationID(orgID), importcheck.UserID(userID)).
		Exec(ctx)
	return err
}

// Prune deletes every checked file past its end at now and returns how many.
func Prune(ctx context.Context, c *ent.Client, now time.Time) (int, error) {
	ctx = systemCtx(ctx)
	return c.ImportCheck.Delete().Where(importcheck.ExpiresAtLTE(now)).Exec(ctx)
}
