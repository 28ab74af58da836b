package tui

import (
	"errors"
	"slices"
	"testing"
)

func TestEditorCommandChoosesTheOperatorsEditor(t *testing.T) {
	t.Parallel()
	rows := []struct {
		name  string
		env   map[string]string
		found []string // the programs on the PATH
		want  []string
	}{
		{"$VISUAL over $EDITOR", map[string]string{"VISUAL": "code --wait", "EDITOR": "vim"}, nil,
			[]string{"sh", "-c", `code --wait "$1"`, "parley-editor", "/tmp/m.md"}},
		{"$EDITOR", map[string]string{"EDITOR": "vim"}, nil, []string{"sh", "-c", `vim "$1"`, "parley-editor", "/tmp/m.md"}},
		{"nano without either", nil, []string{"nano", "vi"}, []string{"/usr/bin/nano", "/tmp/m.md"}},
		{"then vi", nil, []string{"vi"}, []string{"/usr/bin/vi", "/tmp/m.md"}},
	}
	for _, row := range rows {
		lookPath := func(name string) (string, error) {
			if slices.Contains(row.found, name) {
				return "/usr/bin/" + name, nil
			}
			return "", errors.New("not found")
		}
		cmd, err := editorCommand(func(k string) string { return row.env[k] }, lookPath, "/tmp/m.md")
		if err != nil || !slices.Equal(cmd.Args, row.want) {
			t.Errorf("%s: %v, %v; want %v", row.name, cmd, err, row.want)
		}
	}
	_, err := editorCommand(func(string) string { return "" }, func(string) (string, error) { return "", errors.New("no") }, "/tmp/m.md")
	if err == nil || err.Error() != "no editor found: set $EDITOR (for example export EDITOR=vim)" {
		t.Errorf("no editor at all: %v", err)
	}
}

func TestWhatTheEditorSavedFillsTheInput(t *testing.T) {
	t.Parallel()
	m := loadedModel(t, nil, 80, 24)
	m = typeText(m, "a draft")
	m, _ = step(m, editorDoneMsg{text: "  \n"})
	if m.input.Value() != "a draft" || m.noticeErr {
		t.Fatalf("an empty save: input %q, notice %q", m.input.Value(), m.notice)
	}
	m, _ = step(m, editorDoneMsg{text: "line one\nline two\n"})
	if m.input.Value() != "line one\nline two" {
		t.Fatalf("a save: input %q", m.input.Value())
	}
	m, _ = step(m, editorDoneMsg{err: errors.New("exit status 1")})
	if m.input.Value() != "line one\nline two" || !m.noticeErr {
		t.Fatalf("a failed editor: input %q, notice %q", m.input.Value(), m.notice)
	}
}
