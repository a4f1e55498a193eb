package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"
	"strings"
)

// examples are one example per command, shown by `larder <command> --help`
// (a test checks that every command has one).
var examples = map[string]string{
	"serve":                 "larder serve --demo",
	"migrate":               "larder migrate --database postgres://larder@db/larder",
	"migrate diff":          "larder migrate diff add_lot_notes",
	"migrate hash":          "larder migrate hash",
	"migrate distribute":    "larder migrate distribute --database postgres://larder@coordinator/larder",
	"org create":            "larder org create --name 'Boulangerie Nord' --currency CAD",
	"org set-plan":          "larder org set-plan --org 1 --plan enterprise",
	"org settings":          "larder org settings --org 1 --block-unapproved-suppliers true",
	"org reset-test":        "larder org reset-test --org 1 --json",
	"key create":            "larder key create --org 1 --env live --scopes catalog:read,inventory:write --name 'Shop sync'",
	"key list":              "larder key list --org 1 --history",
	"key rotate":            "larder key rotate --key 12 --grace 24h",
	"key revoke":            "larder key revoke --key 12",
	"product import":        "larder product import --org 1 --env live products.csv",
	"product export":        "larder product export --org 1 --env test --out products.csv",
	"product delete":        "larder product delete --org 1 --env live --code RM-FLOUR",
	"list import":           "larder list import --org 1 --env live --list tax-rates tax-rates.csv",
	"list export":           "larder list export --org 1 --env test --list territories --format csv",
	"lot set-qc":            "larder lot set-qc --org 1 --env live --lot 42 --status RELEASED --release-expires 2026-12-31T00:00:00Z",
	"lot trace":             "larder lot trace --org 1 --env live --lot 42 --direction forward --format csv > recall.csv",
	"production create":     "larder production create --org 1 --env live --product FG-BAR6 --line 'Line 1' --qty 120 --lot-number BR-2612-01",
	"production start":      "larder production start --org 1 --env live --id 7",
	"production complete":   "larder production complete --org 1 --env live --id 7 --produced 118",
	"production sign":       "larder production sign --org 1 --env live --id 7",
	"supplier approve":      "larder supplier approve --org 1 --env live --supplier MILL-01 --expires 2027-06-30",
	"supplier suspend":      "larder supplier suspend --org 1 --env live --supplier MILL-01",
	"supplier reject":       "larder supplier reject --org 1 --env live --supplier MILL-01",
	"supplier reset":        "larder supplier reset --org 1 --env live --supplier MILL-01",
	"supplier certify":      "larder supplier certify --org 1 --env live --supplier MILL-01 --scheme BRCGS --expires-on 2027-03-31",
	"bill cancel":           "larder bill cancel --org 1 --env live --id 31",
	"invoice cancel":        "larder invoice cancel --org 1 --env live --id 58",
	"access-report":         "larder access-report --json > access.json",
	"api diff":              "larder api diff --against 1.1",
	"api release":           "larder api release 1.3",
	"api changelog":         "larder api changelog",
	"seed":                  "larder seed --org 1 --env test --scale 100",
	"webhook create":        "larder webhook create --org 1 --env live --url https://example.com/larder --email ops@example.com",
	"webhook list":          "larder webhook list --org 1",
	"webhook update":        "larder webhook update --endpoint 3 --url https://example.com/larder/v2",
	"webhook disable":       "larder webhook disable --endpoint 3",
	"webhook enable":        "larder webhook enable --endpoint 3",
	"webhook delete":        "larder webhook delete --endpoint 3",
	"webhook rotate-secret": "larder webhook rotate-secret --endpoint 3 --grace 24h",
	"webhook deliveries":    "larder webhook deliveries --endpoint 3 --outcome failed --type tag.created --limit 20",
	"webhook resend":        "larder webhook resend --endpoint 3 --failed-since 2026-03-01T00:00:00Z",
	"event list":            "larder event list --org 1 --env live --resource tag:42 --json",
	"requests":              "larder requests --org 1 --env live --status 4xx --since 24h",
	"webhook ping":          "larder webhook ping --endpoint 3",
	"webhook listen":        "larder webhook listen --endpoint 3",
	"webhook worker":        "larder webhook worker --database postgres://larder@db/larder",
	"secrets rotate":        "larder secrets rotate --database postgres://larder@db/larder --json",
	"user invite":           "larder user invite --org 1 --email ana@example.com --role developer --console-url https://larder.example.com",
	"user list":             "larder user list --org 1",
	"user set-role":         "larder user set-role --user 4 --role operator",
	"user remove":           "larder user remove --user 4",
	"user reset-password":   "larder user reset-password --user 4",
	"user unlock":           "larder user unlock --user 4",
}

// isHelp reports whether an argument asks for help.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "--help" || arg == "-help" || arg == "help"
}

// synopsis splits a command's usage into its synopsis and its description
// (separated by two spaces).
func (c *command) synopsis() (string, string) {
	syn, about, _ := strings.Cut(c.usage, "  ")
	return syn, strings.TrimSpace(about)
}

// usageOf writes the commands whose name starts with prefix ("" for all).
func usageOf(w io.Writer, prefix string) {
	fmt.Fprintln(w, "usage: larder <command> [flags]   (larder <command> --help for its flags and an example)")
	for i := range commands {
		if prefix == "" || strings.HasPrefix(commands[i].name, prefix) {
			syn, about := commands[i].synopsis()
			fmt.Fprintf(w, "  larder %s\n        %s\n", syn, about)
		}
	}
	fmt.Fprintln(w, "every command takes --database URL ($LARDER_DATABASE_URL) and --json; larder --version prints the version")
}

// group reports whether word names a group of commands (key, webhook, …).
func group(word string) bool {
	for i := range commands {
		if strings.HasPrefix(commands[i].name, word+" ") {
			return true
		}
	}
	return false
}

// commandHelp makes a flag set's -h print the running command's
// description, synopsis, example and flags (only those it reads) on
// standard output.
func (e *env) commandHelp(fs *flag.FlagSet) {
	fs.Usage = func() {
		out := e.stdout
		if c := e.cmd; c != nil {
			syn, about := c.synopsis()
			fmt.Fprintf(out, "%s\n\nusage: larder %s\n\nexample:\n  %s\n\nflags:\n", about, syn, examples[c.name])
		}
		fs.SetOutput(out)
		fs.PrintDefaults()
		fs.SetOutput(e.stderr)
	}
}

// moduleVersion is the main module's version ((devel) in a build from source).
func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi.Main.Version
	}
	return "unknown"
}

// version is the module version and the commit the binary was built from.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "larder (no build information)"
	}
	v := bi.Main.Version
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	out := "larder " + v
	if rev := settings["vcs.revision"]; rev != "" {
		out += " commit " + rev
		if settings["vcs.modified"] == "true" {
			out += " (modified)"
		}
		if t := settings["vcs.time"]; t != "" {
			out += " " + t
		}
	}
	return out + " " + bi.GoVersion
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// commandNames are every command's name, sorted.
func commandNames() []string {
	out := make([]string, len(commands))
	for i := range commands {
		out[i] = commands[i].name
	}
	sort.Strings(out)
	return out
}
