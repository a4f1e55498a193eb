package migrate

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"ariga.io/atlas/sql/migrate"
	"entgo.io/ent/dialect"
)

// RevisionTable is the history of applied migrations, laid out as the Atlas
// CLI lays it out, so the CLI could take over a database.
const RevisionTable = "atlas_schema_revisions"

// revisions is a migrate.RevisionReadWriter over plain SQL.
type revisions struct {
	db  *sql.DB
	dia string
}

// Ident names the history table so Atlas leaves it out of its cleanliness check.
func (r *revisions) Ident() *migrate.TableIdent {
	if r.dia == dialect.Postgres {
		return &migrate.TableIdent{Schema: "public", Name: RevisionTable}
	}
	return &migrate.TableIdent{Name: RevisionTable}
}

// q rewrites ? placeholders for PostgreSQL.
func (r *revisions) q(s string) string {
	if r.dia != dialect.Postgres {
		return s
	}
	var b strings.Builder
	n := 0
	for _, c := range s {
		if c == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

func (r *revisions) init(ctx context.Context) error {
	// Direct SQL: the migration history table is Atlas's bookkeeping, outside the schema.
	ts := "timestamptz"
	if r.dia == dialect.SQLite {
		ts = "datetime"
	}
	_, err := r.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+RevisionTable+` (
  version varchar(255) NOT NULL PRIMARY KEY,
  description text NOT NULL,
  type bigint NOT NULL DEFAULT 2,
  applied bigint NOT NULL DEFAULT 0,
  total bigint NOT NULL DEFAULT 0,
  executed_at `+ts+` NOT NULL,
  execution_time bigint NOT NULL,
  error text NULL,
  error_stmt text NULL,
  hash text NOT NULL,
  partial_hashes text NULL,
  operator_version text NOT NULL)`)
	return err
}

const revColumns = `version, description, type, applied, total, executed_at, execution_time, error, error_stmt, hash, partial_hashes, operator_version`

func (r *revisions) scan(row interface{ Scan(...any) error }) (*migrate.Revision, error) {
	var (
		rev                    migrate.Revision
		execNS                 int64
		errS, errStmt, partial sql.NullString
	)
	if err := row.Scan(&rev.Version, &rev.Description, &rev.Type, &rev.Applied, &rev.Total,
		&rev.ExecutedAt, &execNS, &errS, &errStmt, &rev.Hash, &partial, &rev.OperatorVersion); err != nil {
		return nil, err
	}
	rev.ExecutionTime, rev.Error, rev.ErrorStmt = time.Duration(execNS), errS.String, errStmt.String
	if partial.String != "" {
		if err := json.Unmarshal([]byte(partial.String), &rev.PartialHashes); err != nil {
			return nil, err
		}
	}
	return &rev, nil
}

// ReadRevisions returns every applied revision in version order.
func (r *revisions) ReadRevisions(ctx context.Context) ([]*migrate.Revision, error) {
	// Direct SQL: the migration history table is Atlas's bookkeeping, outside the schema.
	rows, err := r.db.QueryContext(ctx, `SELECT `+revColumns+` FROM `+RevisionTable+` ORDER BY version`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*migrate.Revision
	for rows.Next() {
		rev, err := r.scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, rev)
	}
	return out, rows.Err()
}

// ReadRevision returns one revision.
func (r *revisions) ReadRevision(ctx context.Context, v string) (*migrate.Revision, error) {
	// Direct SQL: the migration history table is Atlas's bookkeeping, outside the schema.
	rev, err := r.scan(r.db.QueryRowContext(ctx, r.q(`SELECT `+revColumns+` FROM `+RevisionTable+` WHERE version = ?`), v))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, migrate.ErrRevisionNotExist
	}
	return rev, err
}

// WriteRevision inserts or replaces a revision.
func (r *revisions) WriteRevision(ctx context.Context, rev *migrate.Revision) error {
	// Direct SQL: the migration history table is Atlas's bookkeeping, outside the schema.
	partial, err := json.Marshal(rev.PartialHashes)
	if err != nil {
		return err
	}
	_, err = r.db.ExecContext(ctx, r.q(`INSERT INTO `+RevisionTable+` (`+revColumns+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)
ON CONFLICT (version) DO UPDATE SET description=excluded.description, type=excluded.type, applied=excluded.applied,
 total=excluded.total, executed_at=excluded.executed_at, execution_time=excluded.execution_time, error=excluded.error,
 error_stmt=excluded.error_stmt, hash=excluded.hash, partial_hashes=excluded.partial_hashes, operator_version=excluded.operator_version`),
		rev.Version, rev.Description, rev.Type, rev.Applied, rev.Total, rev.ExecutedAt.UTC(), int64(rev.ExecutionTime),
		rev.Error, rev.ErrorStmt, rev.Hash, string(partial), rev.OperatorVersion)
	return err
}

// DeleteRevision removes a revision.
func (r *revisions) DeleteRevision(ctx context.Context, v string) error {
	// Direct SQL: the migration history table is Atlas's bookkeeping, outside the schema.
	_, err := r.db.ExecContext(ctx, r.q(`DELETE FROM `+RevisionTable+` WHERE version = ?`), v)
	return err
}
