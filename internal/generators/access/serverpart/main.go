// Command serverpart writes internal/generators/access/data/server.json, the access report's
// server part (access.ServerPart: the scopes' implications, the key and limit
// rules, the encrypted columns, the console), from the module root. It
// compiles the server, but what it writes does not change with ent/schema, so
// `go generate ./...` does not run it again after a schema change (see
// ../../../../generate.go).
package main

import (
	"encoding/json"
	"log"
	"os"

	"larder.dev/larder/internal/generators/access"
)

func main() {
	b, err := json.MarshalIndent(access.ServerPart(), "", "  ")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.MkdirAll("internal/generators/access/data", 0o755); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("internal/generators/access/data/server.json", append(b, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
}
