// Command archcheck holds ARCHITECTURE.md to the code: for every package of the module, the
// package table's "imports of parley's" column must list exactly the module's packages that
// the package imports (tests aside), as go list reports them; the lines naming who imports
// Bubble Tea and who reads the environment must name exactly those packages; every test kit
// must be named. With -write it
// prints the column as it should be instead. .ci/run runs it, so the table cannot drift.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
)

// pkg is what go list says of one package.
type pkg struct {
	ImportPath string
	Imports    []string
}

func main() {
	write := flag.Bool("write", false, "print each package's imports column as it should be")
	doc := flag.String("doc", "ARCHITECTURE.md", "the document holding the table")
	flag.Parse()
	module, want, err := listImports()
	if err != nil {
		fail(err)
	}
	if *write {
		for _, p := range sortedKeys(want) {
			fmt.Printf("| `%s` | %s |\n", p, column(want[p]))
		}
		return
	}
	got, err := readTable(*doc)
	if err != nil {
		fail(err)
	}
	var wrong []string
	for _, p := range sortedKeys(want) {
		g, ok := got[p]
		switch {
		case !ok:
			wrong = append(wrong, fmt.Sprintf("%s: not in the table (imports %s)", p, column(want[p])))
		case !slices.Equal(g, want[p]):
			wrong = append(wrong, fmt.Sprintf("%s: the table says %s, the code imports %s", p, column(g), column(want[p])))
		}
	}
	for _, p := range sortedKeys(got) {
		if _, ok := want[p]; !ok {
			wrong = append(wrong, fmt.Sprintf("%s: in the table, but no such package in %s", p, module))
		}
	}
	claims, err := checkClaims(module, *doc)
	if err != nil {
		fail(err)
	}
	wrong = append(wrong, claims...)
	if len(wrong) > 0 {
		fmt.Fprintf(os.Stderr, "%s does not say what the code does (go run ./scripts/archcheck -write prints the table's column):\n", *doc)
		for _, w := range wrong {
			fmt.Fprintln(os.Stderr, "  "+w)
		}
		os.Exit(1)
	}
}

// listImports returns the module path and, for each of its packages outside scripts/ and
// the test helpers (…test packages), the module's packages it imports, relative to the module.
func listImports() (string, map[string][]string, error) {
	mod, err := exec.Command("go", "list", "-m").Output()
	if err != nil {
		return "", nil, fmt.Errorf("go list -m: %v", err)
	}
	module := strings.TrimSpace(string(mod))
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", "./...").Output()
	if err != nil {
		return "", nil, fmt.Errorf("go list: %v", err)
	}
	imports := map[string][]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			return "", nil, err
		}
		name := relative(module, p.ImportPath)
		if strings.HasPrefix(name, "scripts/") || strings.HasSuffix(name, "test") && name != "e2e" {
			continue
		}
		var own []string
		for _, imp := range p.Imports {
			if imp == module || strings.HasPrefix(imp, module+"/") {
				own = append(own, relative(module, imp))
			}
		}
		slices.Sort(own)
		imports[name] = own
	}
	return module, imports, nil
}

// relative is path inside module: "main" for the module's root package.
func relative(module, path string) string {
	if path == module {
		return "main"
	}
	return strings.TrimPrefix(path, module+"/")
}

// readTable reads the rows of the table whose header has an "imports of parley's" column:
// the package in the first column, the imports listed in backticks in that column ("none"
// for none).
func readTable(path string) (map[string][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows := map[string][]string{}
	col := -1
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "|") {
			col = -1
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if col < 0 {
			for i, c := range cells {
				if strings.TrimSpace(c) == "imports of parley's" {
					col = i
				}
			}
			continue
		}
		if col >= len(cells) || strings.HasPrefix(strings.TrimSpace(cells[0]), "---") {
			continue
		}
		name := strings.Trim(strings.TrimSpace(cells[0]), "`")
		rows[name] = ticked(cells[col])
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no table with an \"imports of parley's\" column", path)
	}
	return rows, sc.Err()
}

// ticked returns the words in backticks in s, sorted.
func ticked(s string) []string {
	var words []string
	for parts := strings.Split(s, "`"); len(parts) > 2; parts = parts[2:] {
		words = append(words, parts[1])
	}
	slices.Sort(words)
	return words
}

// column writes imports as the table does.
func column(imports []string) string {
	if len(imports) == 0 {
		return "none"
	}
	quoted := make([]string, len(imports))
	for i, imp := range imports {
		quoted[i] = "`" + imp + "`"
	}
	return strings.Join(quoted, ", ")
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "archcheck:", err)
	os.Exit(2)
}
