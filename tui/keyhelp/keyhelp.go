// Package keyhelp words key bindings for the screen's help: the help line, hints in titles and
// notices. The screen and its overlays name keys through it, by their bindings' help, so what
// the help says is what the keys do.
package keyhelp

import (
	"strings"

	"charm.land/bubbles/v2/key"
)

// Joined is one help entry for bindings that share a description: their help keys joined by
// "/", enabled when any of them is.
func Joined(bs ...key.Binding) key.Binding {
	var keys, names []string
	enabled := false
	for _, b := range bs {
		keys = append(keys, b.Keys()...)
		names = append(names, b.Help().Key)
		enabled = enabled || b.Enabled()
	}
	j := key.NewBinding(key.WithKeys(keys...), key.WithHelp(strings.Join(names, "/"), bs[0].Help().Desc))
	j.SetEnabled(enabled)
	return j
}

// Relabel returns b described as desc, under the keys its help names: for a hint that words
// it more briefly, or for what it does in the current state.
func Relabel(b key.Binding, desc string) key.Binding {
	b.SetHelp(b.Help().Key, desc)
	return b
}

// Hint is a one-line reminder of bindings for a title: "key desc · key desc".
func Hint(bs ...key.Binding) string {
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = b.Help().Key + " " + b.Help().Desc
	}
	return strings.Join(parts, " · ")
}
