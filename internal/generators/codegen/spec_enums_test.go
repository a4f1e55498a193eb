package codegen

import (
	"encoding/json"
	"strings"
	"testing"
)

// enumDoc is a description whose Thing is answered and whose ThingCreate is
// sent; both name the enum Kind, Thing also a nullable one.
const enumDoc = `{"paths": {"/things": {
  "get": {"parameters": [{"name": "kind", "in": "query", "schema": {"$ref": "#/components/schemas/Kind"}}],
          "responses": {"200": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}}}},
  "post": {"requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/ThingCreate"}}}},
           "responses": {"200": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}}}}}},
 "components": {"schemas": {
  "Kind": {"type": "string", "enum": ["A", "B"]},
  "Thing": {"type": "object", "properties": {
    "kind": {"$ref": "#/components/schemas/Kind"},
    "old_kind": {"anyOf": [{"$ref": "#/components/schemas/Kind"}, {"type": "null"}]}}},
  "ThingCreate": {"type": "object", "properties": {"kind": {"$ref": "#/components/schemas/Kind"}}}}}}`

func parseDoc(t *testing.T, s string) *object {
	t.Helper()
	v, err := parseTree([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v.(*object)
}

// An answered enum reads as the enum or any string (nullable: or null);
// the parameter and the body keep the enum closed.
func TestOpenEnumsOpensAnswersOnly(t *testing.T) {
	doc := parseDoc(t, enumDoc)
	if err := openEnums(doc); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(doc.obj("components").obj("schemas"))
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, want := range []string{
		`"Thing":{"type":"object","properties":{"kind":{"anyOf":[{"$ref":"#/components/schemas/Kind"},{"type":"string","description":"` + openEnumDoc + `"}]}`,
		`"old_kind":{"anyOf":[{"$ref":"#/components/schemas/Kind"},{"type":"string","description":"` + openEnumDoc + `"},{"type":"null"}]}`,
		`"ThingCreate":{"type":"object","properties":{"kind":{"$ref":"#/components/schemas/Kind"}}}`,
		`"Kind":{"type":"string","enum":["A","B"]}`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %s in\n%s", want, got)
		}
	}
	if p, _ := json.Marshal(doc.obj("paths")); !strings.Contains(string(p), `"schema":{"$ref":"#/components/schemas/Kind"}`) {
		t.Errorf("the filter is no longer the closed enum: %s", p)
	}
}

// A schema both sent and answered that holds an enum is refused: it cannot
// be open and closed at once.
func TestOpenEnumsRefusesASchemaSentAndAnswered(t *testing.T) {
	doc := parseDoc(t, strings.Replace(enumDoc, `"$ref": "#/components/schemas/ThingCreate"`, `"$ref": "#/components/schemas/Thing"`, 1))
	if err := openEnums(doc); err == nil || !strings.Contains(err.Error(), "Thing") {
		t.Fatalf("err %v, want Thing refused", err)
	}
}
