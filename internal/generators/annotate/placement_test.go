package annotate

import "testing"

// A schema's own placement takes the place of its mixin's, whichever the
// loader meets first.
func TestPlacementMerge(t *testing.T) {
	mixin, own := Place(Distributed), Place(Reference)
	if got := mixin.Merge(own); got != own {
		t.Errorf("the mixin's placement merged with the schema's = %v, want the schema's %v", got, own)
	}
	if got := mixin.Merge(&own); got != own {
		t.Errorf("the mixin's placement merged with a pointer to the schema's = %v, want %v", got, own)
	}
	if got := mixin.Merge(Hidden()); got != mixin {
		t.Errorf("a placement merged with another annotation = %v, want itself", got)
	}
}
