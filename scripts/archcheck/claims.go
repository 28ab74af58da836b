package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// What ARCHITECTURE.md says of the code beyond its imports table, each held to the code:
// which packages import Bubble Tea, which read the process's environment, and that every test
// kit (a …test package) is named.

const bubbleTea = "charm.land/bubbletea/v2"

// readsEnv finds a call or use of the process's environment in Go source.
var readsEnv = regexp.MustCompile(`\bos\.(Getenv|LookupEnv|Environ)\b`)

// source is what go list says of one package's non-test files.
type source struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
}

// checkClaims returns what in doc the code does not bear out.
func checkClaims(module, doc string) ([]string, error) {
	text, err := os.ReadFile(doc)
	if err != nil {
		return nil, err
	}
	out, err := exec.Command("go", "list", "-json=ImportPath,Dir,GoFiles,Imports", "./...").Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v", err)
	}
	var tea, env, kits []string
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p source
		if err := dec.Decode(&p); err != nil {
			return nil, err
		}
		name := relative(module, p.ImportPath)
		if strings.HasPrefix(name, "scripts/") {
			continue
		}
		if strings.HasSuffix(name, "test") && name != "e2e" {
			kits = append(kits, name)
		}
		if slices.Contains(p.Imports, bubbleTea) {
			tea = append(tea, name)
		}
		for _, f := range p.GoFiles {
			b, err := os.ReadFile(filepath.Join(p.Dir, f))
			if err != nil {
				return nil, err
			}
			if readsEnv.Match(b) {
				env = append(env, name)
				break
			}
		}
	}
	var wrong []string
	for _, c := range []struct {
		lead string
		code []string
	}{
		{"Bubble Tea is imported by:", tea},
		{"The process's environment is read by:", env},
	} {
		said, ok := claim(string(text), c.lead)
		switch {
		case !ok:
			wrong = append(wrong, fmt.Sprintf("no line %q", "- "+c.lead+" …"))
		case !slices.Equal(said, sorted(c.code)):
			wrong = append(wrong, fmt.Sprintf("%q says %s, the code: %s", c.lead, column(said), column(sorted(c.code))))
		}
	}
	for _, k := range kits {
		if !bytes.Contains(text, []byte("`"+k+"`")) {
			wrong = append(wrong, fmt.Sprintf("the test kit %s is not named", k))
		}
	}
	return wrong, nil
}

// claim returns the packages a bullet starting with lead names: the words in backticks,
// leaving out what stands in parentheses.
func claim(text, lead string) ([]string, bool) {
	i := strings.Index(text, "- "+lead)
	if i < 0 {
		return nil, false
	}
	item := text[i+2+len(lead):]
	if end := strings.Index(item, "\n- "); end >= 0 {
		item = item[:end]
	}
	if end := strings.Index(item, "\n\n"); end >= 0 {
		item = item[:end]
	}
	var kept strings.Builder
	depth := 0
	for _, r := range item {
		switch {
		case r == '(':
			depth++
		case r == ')':
			depth--
		case depth == 0:
			kept.WriteRune(r)
		}
	}
	return ticked(kept.String()), true
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
