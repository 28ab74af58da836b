package tui

import "charm.land/bubbles/v2/key"

// HelpKeys returns every binding as the ? view names it, grouped by focus: what a test of
// the screen a terminal shows looks for on it.
func HelpKeys() [][]key.Binding { return fullKeys(DefaultKeyMap()).FullHelp() }
