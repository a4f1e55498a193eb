package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"larder.dev/larder/internal/generators/annotate"
)

// Tag is a label an account attaches to products, customers or suppliers.
type Tag struct{ ent.Schema }

// Mixin makes tags an account's, with audit timestamps.
func (Tag) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}, TimeMixin{}} }

// Fields of a tag.
func (Tag) Fields() []ent.Field {
	return []ent.Field{
		field.String("description").
			Optional().
			Nillable().
			Comment("Free-text description.").
			Annotations(annotate.MaxLen(500)),
		field.String("name").
			Comment("Tag name, unique per ref_type within the account.").
			Annotations(annotate.Len(1, 100), annotate.PartialFilter(), annotate.Sortable(), annotate.Searchable()),
		field.Enum("ref_type").
			Values("PRODUCT", "CUSTOMER", "SUPPLIER").
			Immutable().
			Comment("The kind of record the tag applies to; fixed at creation.").
			Annotations(annotate.RequiredFilter()),
	}
}

// Indexes: names are unique per ref_type; lists filter by ref_type and sort by name.
func (Tag) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("account_id", "ref_type", "name").Unique(),
		index.Fields("account_id", "name"),
	}
}

// Annotations expose tags at /tags.
func (Tag) Annotations() []schema.Annotation {
	return []schema.Annotation{
		annotate.Expose("tags", "tag_id", annotate.Catalog, annotate.CRUD...).
			Emits("created", "updated", "deleted").
			Describe("Labels attached to products, customers or suppliers."),
	}
}
