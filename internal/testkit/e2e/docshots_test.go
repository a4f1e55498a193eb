package e2e_test

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// docImage is a picture a Markdown document shows: ![alt](file.png).
var docImage = regexp.MustCompile(`!\[[^\]]*\]\(([^)\s]+\.png)\)`)

// Every picture of the console the documentation shows (the README and
// docs/*.md) is a screenshot one of these tests takes (docShots), so that
// running them with LARDER_UPDATE_DOCS=1 renews it; each is there, drawn
// at the width its test draws the page, and each the tests keep is shown.
// It needs no browser.
func TestDocShots(t *testing.T) {
	docs, err := filepath.Glob(filepath.Join(docsDir, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	shown := map[string]bool{}
	for _, doc := range append(docs, filepath.Join(docsDir, "..", "README.md")) {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range docImage.FindAllSubmatch(b, -1) {
			shown[filepath.Base(string(m[1]))] = true
		}
	}
	kept := map[string]string{}
	for shot, file := range docShots {
		kept[file] = shot
	}
	for file := range shown {
		if _, ok := kept[file]; !ok {
			t.Errorf("the documentation shows %s, which no test's screenshot renews (docShots)", file)
		}
	}
	for file, shot := range kept {
		if !shown[file] {
			t.Errorf("docShots keeps %s (%s), which no document shows", file, shot)
		}
		want, err := strconv.Atoi(shot[strings.LastIndex(shot, "-")+1:])
		if err != nil {
			t.Fatalf("docShots: %s does not end in its width", shot)
		}
		if w := pngWidth(t, filepath.Join(docsDir, file)); w != want {
			t.Errorf("docs/%s is %d px wide, but %s draws the page at %d px: renew it (LARDER_UPDATE_DOCS=1 go test ./internal/testkit/e2e -run %s)",
				file, w, shot, want, strings.Split(shot, "/")[0])
		}
	}
	if len(shown) == 0 || !slices.Contains(docs, filepath.Join(docsDir, "operators.md")) {
		t.Fatalf("no picture found in %v", docs)
	}
}

// pngWidth is the width of the PNG at path, from its header.
func pngWidth(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 24 || !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) || string(b[12:16]) != "IHDR" {
		t.Fatalf("%s is not a PNG", path)
	}
	return int(binary.BigEndian.Uint32(b[16:20]))
}
