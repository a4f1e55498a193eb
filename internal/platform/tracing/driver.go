package tracing

import (
	"context"
	"database/sql"
	"fmt"

	"entgo.io/ent/dialect"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"
	"go.opentelemetry.io/otel/trace"
)

// Driver wraps an ent driver so that each statement is a client span, child
// of the request's: the database system and the SQL text, never the
// arguments.
func Driver(d dialect.Driver, tp trace.TracerProvider) dialect.Driver {
	return &driver{Driver: d, t: tracer{tp.Tracer(Name), system(d.Dialect())}}
}

type tracer struct {
	trace.Tracer
	system attribute.KeyValue
}

func system(dia string) attribute.KeyValue {
	switch dia {
	case dialect.Postgres:
		return semconv.DBSystemNamePostgreSQL
	case dialect.SQLite:
		return semconv.DBSystemNameSQLite
	}
	return semconv.DBSystemNameKey.String(dia)
}

// statement runs f in a span named by the statement's operation.
func (t tracer) statement(ctx context.Context, query string, f func(context.Context) error) error {
	ctx, span := t.Start(ctx, operation(query), trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(t.system, semconv.DBQueryText(query)))
	defer span.End()
	err := f(ctx)
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, "statement failed")
	}
	return err
}

// operation is the first word of a statement (SELECT, INSERT, …).
func operation(query string) string {
	for i, c := range query {
		if c == ' ' || c == '\n' || c == '\t' || c == '(' {
			if i == 0 {
				continue
			}
			return query[:i]
		}
	}
	return query
}

type driver struct {
	dialect.Driver
	t tracer
}

func (d *driver) Exec(ctx context.Context, query string, args, v any) error {
	return d.t.statement(ctx, query, func(ctx context.Context) error { return d.Driver.Exec(ctx, query, args, v) })
}

func (d *driver) Query(ctx context.Context, query string, args, v any) error {
	return d.t.statement(ctx, query, func(ctx context.Context) error { return d.Driver.Query(ctx, query, args, v) })
}

func (d *driver) Tx(ctx context.Context) (dialect.Tx, error) { return d.BeginTx(ctx, nil) }

// BeginTx starts a transaction with opts when the wrapped driver takes them.
func (d *driver) BeginTx(ctx context.Context, opts *sql.TxOptions) (dialect.Tx, error) {
	var tx dialect.Tx
	err := d.t.statement(ctx, "BEGIN", func(ctx context.Context) (err error) {
		if b, ok := d.Driver.(interface {
			BeginTx(context.Context, *sql.TxOptions) (dialect.Tx, error)
		}); ok {
			tx, err = b.BeginTx(ctx, opts)
		} else if opts == nil {
			tx, err = d.Driver.Tx(ctx)
		} else {
			err = fmt.Errorf("tracing: the driver takes no transaction options")
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return &txn{Tx: tx, t: d.t, ctx: ctx}, nil
}

type txn struct {
	dialect.Tx
	t   tracer
	ctx context.Context
}

func (x *txn) Exec(ctx context.Context, query string, args, v any) error {
	return x.t.statement(ctx, query, func(ctx context.Context) error { return x.Tx.Exec(ctx, query, args, v) })
}

func (x *txn) Query(ctx context.Context, query string, args, v any) error {
	return x.t.statement(ctx, query, func(ctx context.Context) error { return x.Tx.Query(ctx, query, args, v) })
}

func (x *txn) Commit() error {
	return x.t.statement(x.ctx, "COMMIT", func(context.Context) error { return x.Tx.Commit() })
}

func (x *txn) Rollback() error {
	return x.t.statement(x.ctx, "ROLLBACK", func(context.Context) error { return x.Tx.Rollback() })
}

// execQuerier is database/sql's side of ent's drivers and transactions,
// which ent's ExecContext and QueryContext reach for raw SQL.
type execQuerier interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}

// rawExec runs a raw statement on under, in a span, when under takes one.
func (t tracer) rawExec(ctx context.Context, under any, query string, args []any) (res sql.Result, err error) {
	// Direct SQL: passes through the raw statement a caller of ent's ExecContext already chose (that caller is listed where it is written); tracing only wraps it in a span.
	eq, ok := under.(execQuerier)
	if !ok {
		return nil, fmt.Errorf("tracing: ExecContext is not supported by %T", under)
	}
	err = t.statement(ctx, query, func(ctx context.Context) (err error) {
		res, err = eq.ExecContext(ctx, query, args...)
		return err
	})
	return res, err
}

// rawQuery is rawExec for a query.
func (t tracer) rawQuery(ctx context.Context, under any, query string, args []any) (rows *sql.Rows, err error) {
	// Direct SQL: passes through the raw query a caller of ent's QueryContext already chose (that caller is listed where it is written); tracing only wraps it in a span.
	eq, ok := under.(execQuerier)
	if !ok {
		return nil, fmt.Errorf("tracing: QueryContext is not supported by %T", under)
	}
	err = t.statement(ctx, query, func(ctx context.Context) (err error) {
		rows, err = eq.QueryContext(ctx, query, args...)
		return err
	})
	return rows, err
}

func (d *driver) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return d.t.rawExec(ctx, d.Driver, query, args)
}

func (d *driver) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return d.t.rawQuery(ctx, d.Driver, query, args)
}

func (x *txn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return x.t.rawExec(ctx, x.Tx, query, args)
}

func (x *txn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return x.t.rawQuery(ctx, x.Tx, query, args)
}
