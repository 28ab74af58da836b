// Package e2e runs the built parley binary as a user does, where only a process of its own
// will do: the chat screen under tmux, signals, many parleys at once, a real terminal through
// script(1), and the exit statuses as a shell sees them; and it holds the packages to their
// import rules, through go list. Everything else is tested in-process, beside the code. Under
// -short these tests skip; otherwise a missing tmux fails them.
package e2e
