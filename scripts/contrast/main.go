// Command contrast measures the chat screen's colours as a terminal shows them: it runs the
// built binary on the demo in tmux (dark; light from tmux's OSC 11 answer to window-style
// bg=white; light from COLORFGBG=0;15 alone), asks for code, captures the pane with its
// colours (capture-pane -e), and computes WCAG's contrast of every coloured cell's glyph on its
// background (the cell's own, else the terminal's: white on a light pane, black on a dark).
// It prints each pair seen, the worst first, and exits 1 when a pair is under 4.5:1, or under
// 3:1 for the footer's separators and code frames, which are meant to recede.
//
//	go build -o /tmp/parley . && go run ./scripts/contrast -bin /tmp/parley
package main

import (
	"flag"
	"fmt"
	"image/color"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"time"

	"parley/scripts/internal/pane"
	"parley/tui/theme"
)

// setup is one way of running the screen.
type setup struct {
	name  string
	light bool
	env   []string
	style string // tmux window-style, "" for none
}

var setups = []setup{
	{name: "dark"},
	{name: "light (OSC 11 from window-style bg=white)", light: true, style: "bg=white"},
	{name: "light (COLORFGBG=0;15, no OSC 11 answer)", light: true, env: []string{"COLORFGBG=0;15"}},
}

func main() {
	bin := flag.String("bin", "/tmp/looks/parley", "the built parley binary")
	ask := flag.String("ask", "show me a function in go", "what to send the demo")
	until := flag.String("until", "Retry-After", "words of the reply's end, shown once it has all come")
	flag.Parse()
	failed := false
	for i, p := range setups {
		screen, err := capture(*bin, *ask, *until, p, fmt.Sprintf("contrast%d-%d", os.Getpid(), i))
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", p.name, err)
			os.Exit(2)
		}
		pairs := measure(screen, p.light)
		fmt.Printf("== %s: %d coloured pairs\n", p.name, len(pairs))
		for _, pr := range pairs {
			mark := ""
			if pr.ratio < pr.need {
				mark, failed = "  FAIL", true
			}
			fmt.Printf("  %5.2f:1 (need %.1f) %s on %s, %d cells, e.g. %q%s\n", pr.ratio, pr.need, pr.fg, pr.bg, pr.cells, pr.sample, mark)
		}
	}
	if failed {
		os.Exit(1)
	}
}

// capture runs bin in a new tmux server, asks for code, waits for the reply to show until and
// returns the pane with its escape sequences.
func capture(bin, ask, until string, p setup, socket string) (string, error) {
	home, err := os.MkdirTemp("", "contrast")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(home)
	tmux := func(args ...string) (string, error) {
		out, err := exec.Command("tmux", append([]string{"-L", socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
		return string(out), err
	}
	defer tmux("kill-server")
	env := append([]string{"PARLEY_HOME=" + home}, p.env...)
	cmd := "env"
	for _, e := range append(env, bin) {
		cmd += " '" + strings.ReplaceAll(e, "'", `'\''`) + "'"
	}
	if _, err := tmux("new-session", "-d", "-x", "120", "-y", "40", "-s", "c", "sleep 0.5; exec "+cmd); err != nil {
		return "", fmt.Errorf("tmux: %v", err)
	}
	if p.style != "" {
		if out, err := tmux("set", "-g", "window-style", p.style); err != nil {
			return "", fmt.Errorf("window-style: %v %s", err, out)
		}
	}
	if err := waitFor(tmux, "Ask anything", 20*time.Second); err != nil {
		return "", err
	}
	if _, err := tmux("send-keys", "-t", "c", "-l", ask); err != nil {
		return "", err
	}
	if _, err := tmux("send-keys", "-t", "c", "Enter"); err != nil {
		return "", err
	}
	if err := waitFor(tmux, until, 60*time.Second); err != nil {
		return "", err
	}
	// The reply has ended when the screen stops changing.
	last, still := "", 0
	for still < 4 {
		time.Sleep(500 * time.Millisecond)
		s, err := tmux("capture-pane", "-e", "-p", "-t", "c")
		if err != nil {
			return "", err
		}
		if s == last && !strings.Contains(s, "esc cancels") {
			still++
		} else {
			still = 0
		}
		last = s
	}
	return last, nil
}

// waitFor waits until the pane shows text.
func waitFor(tmux func(...string) (string, error), text string, limit time.Duration) error {
	end := time.Now().Add(limit)
	for time.Now().Before(end) {
		if s, _ := tmux("capture-pane", "-p", "-t", "c"); strings.Contains(s, text) {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	s, _ := tmux("capture-pane", "-p", "-t", "c")
	return fmt.Errorf("the pane never showed %q:\n%s", text, s)
}

// pair is a foreground on a background as the pane shows it.
type pair struct {
	fg, bg      string
	ratio, need float64
	cells       int
	sample      string
}

// dimGlyphs are the marks meant to recede: the footer's separator dots, code frames, rules.
const dimGlyphs = "•│╭─↪"

// measure returns every pair of colours a visible glyph is drawn in, worst first.
func measure(screen string, light bool) []pair {
	termFg, termBg := pane.Terminal(light)
	pairs := map[[2]string]*pair{}
	for _, line := range pane.Parse(screen) {
		for _, c := range line {
			if c.Rune == ' ' || c.Rune == '\u00a0' || (c.FG == "" && c.BG == "") {
				continue
			}
			fg, bg := c.Colours(termFg, termBg)
			key := [2]string{fg, bg}
			pr := pairs[key]
			if pr == nil {
				pr = &pair{fg: fg, bg: bg, ratio: theme.Contrast(hex(fg), hex(bg)), need: theme.MinDim}
				pairs[key] = pr
			}
			pr.cells++
			if !strings.ContainsRune(dimGlyphs, c.Rune) {
				pr.need = theme.MinText
			}
			if len(pr.sample) < 24 {
				pr.sample += string(c.Rune)
			}
		}
	}
	var out []pair
	for _, p := range pairs {
		out = append(out, *p)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].ratio < out[b].ratio })
	return out
}

func hex(s string) color.Color {
	v, _ := strconv.ParseUint(strings.TrimPrefix(s, "#"), 16, 32)
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}
}
