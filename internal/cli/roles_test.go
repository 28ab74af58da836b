package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// Roles and system prompts from the command line: --role, --system and a profile's default
// role, as the endpoint is sent them (`parley roles` itself is testdata/script/roles.txtar).

// exportedSystem is the part of export --json that tells system prompts and edits apart.
type exportedSystem struct {
	Messages []struct {
		Role       string `json:"role"`
		Content    string `json:"content"`
		SystemRole string `json:"system_role"`
		Superseded bool   `json:"superseded"`
	} `json:"messages"`
}

func TestARoleFilesPromptIsSentFirstAndStored(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	u.writeHome(map[string]string{"roles/poet.md": "---\nmodel: verse-1\n---\nAnswer in verse.\n"})
	first := decode[printJSON](t, u.run("-p", "hello", "--role", "poet", "--base-url", srv.URL(), "--json").stdout)
	if first.Status != "succeeded" {
		t.Fatalf("%+v", first)
	}
	got := srv.Received()[0]
	if m := got.Messages; len(m) != 2 || m[0].Role != "system" || m[0].Content != "Answer in verse." || m[1].Content != "hello" {
		t.Fatalf("sent %+v, want the role's prompt first", m)
	}
	var body struct{ Model string }
	if err := json.Unmarshal(got.Body, &body); err != nil || body.Model != "verse-1" {
		t.Fatalf("model %q, want the role's verse-1 (%v)", body.Model, err)
	}

	// The session keeps its prompt: continued without --role, it is still sent first.
	u.run("-p", "and again", "-c", "--base-url", srv.URL(), "--model", "m")
	if m := srv.Received()[1].Messages; len(m) != 4 || m[0].Role != "system" || m[0].Content != "Answer in verse." {
		t.Fatalf("continued session sent %+v", m)
	}
	e := decode[exportedSystem](t, u.run("export", first.SessionID, "--json").stdout)
	if len(e.Messages) != 5 || e.Messages[0].Role != "system" || e.Messages[0].SystemRole != "poet" {
		t.Fatalf("export %+v, want the system prompt stored once, first, with its role", e.Messages)
	}
	if md := u.run("export", first.SessionID, "--markdown").stdout; !strings.Contains(md, "## System prompt (role poet)\n\nAnswer in verse.") {
		t.Fatalf("markdown export:\n%s", md)
	}
	if r := u.run("roles"); r.code != 0 || !strings.Contains(r.stdout, "poet") || !strings.Contains(r.stdout, "model verse-1") || !strings.Contains(r.stdout, "Answer in verse.") {
		t.Fatalf("parley roles: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := u.run("-p", "hi", "--role", "bard", "--base-url", srv.URL(), "--model", "m"); r.code != 2 || !strings.Contains(r.stderr, `unknown role "bard"`) || srv.Requests() != 2 {
		t.Fatalf("an unknown role: exit %d, %q, %d requests", r.code, r.stderr, srv.Requests())
	}
}

// --system sets the prompt of the messages from now on; a profile's default role starts new
// sessions only.
func TestSystemFlagAndADefaultRole(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	u.writeConfig(fmt.Sprintf("profile = \"p\"\n[profiles.p]\nbase_url = %q\nmodel = \"m\"\nrole = \"terse\"\n[roles.terse]\nsystem = \"Be terse.\"\n", srv.URL()))
	old := decode[printJSON](t, u.run("-p", "one", "--system", "Be kind.", "--json").stdout)
	u.run("-p", "two", "--session", old.SessionID)
	u.run("-p", "three")
	sent := srv.Received()
	if m := sent[0].Messages; m[0].Content != "Be kind." {
		t.Fatalf("--system: %+v", m)
	}
	if m := sent[1].Messages; m[0].Content != "Be kind." || len(m) != 4 {
		t.Fatalf("a default role changed a session that has a prompt: %+v", m)
	}
	if m := sent[2].Messages; len(m) != 2 || m[0].Content != "Be terse." {
		t.Fatalf("a new session without the default role: %+v", m)
	}
}
