package annotate

import (
	"reflect"
	"testing"
)

// Helpers combine on one field: what a later helper sets wins, booleans add
// up, lists append, and nothing set earlier is lost.
func TestFieldMerge(t *testing.T) {
	var got Field
	for _, h := range []Field{Len(1, 40), Filterable(), Sortable(), Borrow("code"), Cost(), Borrow("name"), MaxLen(50)} {
		got = got.Merge(h).(Field)
	}
	one, fifty := int64(1), int64(50)
	want := Field{Filter: Exact, Sort: true, Cost: true, MinLen: &one, MaxLen: &fifty, Borrow: []string{"code", "name"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("merged %+v, want %+v", got, want)
	}
}
