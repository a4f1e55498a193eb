package console

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
)

// assetPath is where the stylesheet and script are served.
const assetPath = Prefix + "assets/"

// assetVersion changes when an asset does, so browsers may keep them.
var assetVersion = func() string {
	h := sha256.New()
	_ = fs.WalkDir(assetFiles, "assets", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := fs.ReadFile(assetFiles, p)
			h.Write(b)
		}
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))[:12]
}()

// serveAsset serves one embedded asset.
func serveAsset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	b, err := fs.ReadFile(assetFiles, "assets/"+name)
	if err != nil || name == "" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", mime.TypeByExtension(path.Ext(name)))
	w.Header().Set("Cache-Control", "public, max-age=86400")
	_, _ = w.Write(b)
}
