// Command modelsize counts what the chat screen's root model holds: the methods and fields of
// tui.Model, the non-test files at tui/'s top level, and the packages under tui/ that import
// tui (there must be none).
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

func main() {
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join("tui", "*.go"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "modelsize:", err)
		os.Exit(2)
	}
	files, methods, fields := 0, 0, 0
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			fmt.Fprintln(os.Stderr, "modelsize:", err)
			os.Exit(2)
		}
		files++
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil && recvName(d.Recv.List[0].Type) == "Model" {
					methods++
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok && ts.Name.Name == "Model" {
						for _, f := range ts.Type.(*ast.StructType).Fields.List {
							fields += max(1, len(f.Names))
						}
					}
				}
			}
		}
	}
	fmt.Printf("tui.Model: %d methods, %d fields; tui/ top level: %d files\n", methods, fields, files)
	bad := 0
	filepath.WalkDir("tui", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || path == "tui" || filepath.Dir(path) == "tui" || !strings.HasSuffix(path, ".go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "parley/tui" {
				fmt.Printf("%s imports parley/tui\n", path)
				bad++
			}
		}
		return nil
	})
	if bad > 0 {
		os.Exit(1)
	}
}

// recvName is the type a method's receiver names, through a pointer.
func recvName(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
