package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"larder.dev/larder/internal/generators/annotate"
)

// ImportCheck is a file the console checked without finding a problem,
// waiting for its import: the bytes checked, so that the import writes
// exactly them without the person choosing the file again. It is kept in
// the database, so the import may reach any server; it is imported once,
// before it expires.
type ImportCheck struct{ ent.Schema }

// Fields of a checked file.
func (ImportCheck) Fields() []ent.Field {
	return []ent.Field{
		field.Int("organization_id").
			Immutable().
			Comment("The organization the file was checked for."),
		field.Int("user_id").
			Immutable().
			Comment("The person who checked it; only they import it."),
		field.Enum("environment").
			Values("live", "test").
			Immutable().
			Comment("The environment whose account the file was checked against."),
		field.String("list").
			NotEmpty().
			MaxLen(64).
			Immutable().
			Comment("The list the file holds: products, or a reference list's name."),
		field.Enum("format").
			Values("csv", "jsonl").
			Immutable().
			Comment("How the file is read."),
		field.String("file_name").
			Default("").
			MaxLen(255).
			Immutable().
			Comment("The file's name as the browser sent it."),
		field.String("sha256").
			MinLen(64).
			MaxLen(64).
			Immutable().
			Comment("Hex SHA-256 of the content."),
		field.Bytes("content").
			Immutable().
			Sensitive().
			Comment("The file as checked."),
		field.Time("created_at").
			Default(now).
			Immutable().
			Comment("When the file was checked."),
		field.Time("expires_at").
			Immutable().
			Comment("When the check stops being importable."),
	}
}

// Edges of a checked file: its organization and person. Either going takes
// the file with it.
func (ImportCheck) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("organization", Organization.Type).
			Field("organization_id").
			Unique().
			Required().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("user", User.Type).
			Field("user_id").
			Unique().
			Required().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of checked files: a person's, and the expired ones to prune.
func (ImportCheck) Indexes() []ent.Index {
	return []ent.Index{index.Fields("organization_id", "user_id"), index.Fields("expires_at")}
}

// Annotations keep checked files out of the API; on a distributed PostgreSQL
// the table is a local table, on the coordinator (docs/scaling.md).
func (ImportCheck) Annotations() []schema.Annotation {
	return []schema.Annotation{annotate.Internal(), annotate.Place(annotate.Local)}
}

// Mixin makes it system-only.
func (ImportCheck) Mixin() []ent.Mixin { return []ent.Mixin{SystemOnlyMixin{}} }
