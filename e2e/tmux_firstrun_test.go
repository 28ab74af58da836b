package e2e

import (
	"fmt"
	"strings"
	"testing"

	"parley/internal/demo"
)

// The first screen says what parley will talk to when the operator may not know.

func TestTmuxAKeyAloneIsOpenAISaidOnTheFirstScreen(t *testing.T) {
	p := newPane(t, "m", demo.Options{})
	// No config, no flags, no OPENAI_BASE_URL: only the key most developers have exported.
	// Nothing is sent: the test only reads the first screen.
	cmd := fmt.Sprintf("env -u OPENAI_BASE_URL -u PARLEY_MODEL PARLEY_HOME=%s OPENAI_API_KEY=sk-k25-not-a-key %s; sleep 60", p.home, p.bin)
	p.newSession("-d", "-s", "parley", "-x", "110", "-y", "30", cmd)
	s := p.waitScreen("idle")
	if !strings.Contains(s, "using OPENAI_API_KEY: gpt-4o-mini at api.openai.com · --demo for the offline demo") {
		t.Fatalf("the first screen does not say where messages go:\n%s", s)
	}
	if !strings.Contains(s, "openai · gpt-4o-mini") {
		t.Fatalf("the header does not name the endpoint:\n%s", s)
	}
}

func TestTmuxAKeyNotSetIsInTheHeaderAtStart(t *testing.T) {
	p := newPane(t, "m", demo.Options{})
	p.start(110, 30, nil, "--api-key-env", "PARLEY_K25_UNSET")
	s := p.screen()
	header := strings.SplitN(s, "\n", 2)[0]
	if !strings.Contains(header, "PARLEY_K25_UNSET not set") {
		t.Fatalf("the header does not say the key is not set:\n%s", s)
	}
	if !strings.Contains(s, "PARLEY_K25_UNSET is not set: export PARLEY_K25_UNSET=…") {
		t.Fatalf("the first screen does not name the fix:\n%s", s)
	}
	p.requests(0)
}
