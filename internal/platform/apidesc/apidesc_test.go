package apidesc

import (
	"slices"
	"strings"
	"testing"
)

// Every operation of a path item is read with its method and path; the path
// item's parameters and summary are not operations.
func TestOperations(t *testing.T) {
	doc := `{"paths": {
		"/tags": {"summary": "Tags", "get": {"operationId": "listTags"}, "post": {"operationId": "createTag", "x-a": 1}},
		"/tags/{tag_id}": {"parameters": [{"name": "tag_id"}], "delete": {"operationId": "deleteTag"}}}}`
	ops, err := Operations([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range ops {
		got = append(got, o.Method+" "+o.Path+" "+o.ID)
		if o.ID == "createTag" && !strings.Contains(string(o.JSON), `"x-a": 1`) {
			t.Errorf("createTag's JSON is %s", o.JSON)
		}
	}
	slices.Sort(got)
	if want := []string{"DELETE /tags/{tag_id} deleteTag", "GET /tags listTags", "POST /tags createTag"}; !slices.Equal(got, want) {
		t.Errorf("operations %q, want %q", got, want)
	}
	if _, err := Operations([]byte(`{"paths": [`)); err == nil {
		t.Error("a description that is not JSON is read")
	}
}
