package config_test

import (
	"path/filepath"
	"strings"
	"testing"

	"parley/internal/attach"
	"parley/internal/config"
)

// resolveRoles writes cfg as config.toml and files (name → text) into the roles folder of a
// PARLEY_HOME of its own, and resolves fl there with env ("NAME=value").
func resolveRoles(t *testing.T, cfg string, files map[string]string, fl config.Flags, env ...string) (config.Resolved, string, error) {
	t.Helper()
	all := map[string]string{"config.toml": cfg}
	for name, text := range files {
		all[filepath.Join("roles", name)] = text
	}
	home := writeHome(t, all)
	r, err := resolveIn(home, fl, env...)
	return r, home, err
}

// Where a role's system prompt, profile and model come from, and what they stand over.
func TestRoles(t *testing.T) {
	const (
		profiles = "[profiles.work]\nbase_url = \"http://127.0.0.1:1/v1\"\nmodel = \"wm\"\n" +
			"[profiles.home]\nbase_url = \"http://127.0.0.1:2/v1\"\nmodel = \"hm\"\n"
		poetFile   = "---\nprofile: work\nmodel: \"verse-1\"\n---\n\nAnswer in verse.\n"
		plainFile  = "You review Go code.\n"
		asDefault  = "profile = \"home\"\n[profiles.home]\nbase_url = \"http://127.0.0.1:2/v1\"\nmodel = \"hm\"\nrole = \"poet\"\n[profiles.work]\nbase_url = \"http://127.0.0.1:1/v1\"\n"
		tableRoles = "[roles.terse]\nsystem = \"Be terse.\"\nmodel = \"tm\"\n"
	)
	files := map[string]string{"poet.md": poetFile, "reviewer.md": plainFile, "notes.txt": "not a role"}
	system := func(r config.Resolved) any { return r.System }
	endpoint := func(r config.Resolved) any {
		return r.Endpoint.Name + " " + r.Endpoint.BaseURL + " " + r.Endpoint.Model
	}
	rows := []resolvedRow{
		{"a role file's prompt, front matter left out", profiles, config.Flags{Role: "poet"}, nil, system,
			config.System{Role: "poet", Text: "Answer in verse.", Explicit: true}},
		{"a role file without front matter", profiles, config.Flags{Role: "reviewer", Profile: "home"}, nil, system,
			config.System{Role: "reviewer", Text: "You review Go code.", Explicit: true}},
		{"a role's profile and model", profiles, config.Flags{Role: "poet"}, nil, endpoint, "work http://127.0.0.1:1/v1 verse-1"},
		{"--profile over the role's profile", profiles, config.Flags{Role: "poet", Profile: "home"}, nil, endpoint, "home http://127.0.0.1:2/v1 verse-1"},
		{"--model over the role's model", profiles, config.Flags{Role: "poet", Model: "fm"}, nil, endpoint, "work http://127.0.0.1:1/v1 fm"},
		{"the role's model over PARLEY_MODEL", profiles, config.Flags{Role: "poet"}, []string{"PARLEY_MODEL=em"}, endpoint, "work http://127.0.0.1:1/v1 verse-1"},
		{"a [roles] table", profiles + tableRoles, config.Flags{Role: "terse", Profile: "home"}, nil, system,
			config.System{Role: "terse", Text: "Be terse.", Explicit: true}},
		{"a [roles] table's model", profiles + tableRoles, config.Flags{Role: "terse", Profile: "home"}, nil, endpoint, "home http://127.0.0.1:2/v1 tm"},
		{"--system over the role's prompt, the role's endpoint kept", profiles, config.Flags{Role: "poet", System: "Be kind."}, nil, system,
			config.System{Text: "Be kind.", Explicit: true}},
		{"--system alone", profiles, config.Flags{Profile: "home", System: "Be kind."}, nil, system, config.System{Text: "Be kind.", Explicit: true}},
		{"no role, no prompt", profiles, config.Flags{Profile: "home"}, nil, system, config.System{}},
		{"a profile's default role", asDefault, config.Flags{}, nil, system, config.System{Role: "poet", Text: "Answer in verse."}},
		{"a default role's model, not its profile", asDefault, config.Flags{}, nil, endpoint, "home http://127.0.0.1:2/v1 verse-1"},
		{"--model over a default role's model", asDefault, config.Flags{Model: "fm"}, nil, endpoint, "home http://127.0.0.1:2/v1 fm"},
		{"--role over the profile's default", asDefault, config.Flags{Role: "reviewer"}, nil, system,
			config.System{Role: "reviewer", Text: "You review Go code.", Explicit: true}},
		{"every role, for /role", profiles + tableRoles, config.Flags{Profile: "home"}, nil, func(r config.Resolved) any {
			var names []string
			for n := range r.Roles {
				names = append(names, n)
			}
			return len(names)
		}, 3},
		{"attachments: 256 KiB and 20 MiB by default", profiles, config.Flags{Profile: "home"}, nil, func(r config.Resolved) any { return r.Attach }, attach.Limits{Text: 262144, Image: 20 << 20}},
		{"attachments: config's limits", "max_attachment_bytes = 1000\nmax_image_bytes = 5000\n" + profiles, config.Flags{Profile: "home"}, nil, func(r config.Resolved) any { return r.Attach }, attach.Limits{Text: 1000, Image: 5000}},
		{"screen: config's reading width and mouse", "reading_width = 72\nmouse = true\n" + profiles, config.Flags{Profile: "home"}, nil,
			func(r config.Resolved) any { return [2]any{r.ReadingWidth, r.Mouse} }, [2]any{72, true}},
		{"screen: theme auto and notify bell by default", profiles, config.Flags{Profile: "home"}, nil,
			func(r config.Resolved) any { return [2]string{r.Theme, r.Notify} }, [2]string{"auto", "bell"}},
		{"screen: config's theme and notify", "theme = \"light\"\nnotify = \"osc9\"\n" + profiles, config.Flags{Profile: "home"}, nil,
			func(r config.Resolved) any { return [2]string{r.Theme, r.Notify} }, [2]string{"light", "osc9"}},
		{"screen: no screen reader by default", profiles, config.Flags{Profile: "home"}, nil,
			func(r config.Resolved) any { return r.ScreenReader }, false},
		{"screen: config's screen_reader", "screen_reader = true\n" + profiles, config.Flags{Profile: "home"}, nil,
			func(r config.Resolved) any { return r.ScreenReader }, true},
		{"screen: --screen-reader", profiles, config.Flags{Profile: "home", ScreenReader: true}, nil,
			func(r config.Resolved) any { return r.ScreenReader }, true},
		{"screen: --theme over config's", "theme = \"light\"\n" + profiles, config.Flags{Profile: "home", Theme: "dark"}, nil,
			func(r config.Resolved) any { return r.Theme }, "dark"},
	}
	checkResolved(t, rows, func(t *testing.T, row resolvedRow) (config.Resolved, string, error) {
		return resolveRoles(t, row.cfg, files, row.fl, row.env...)
	})
}

// A role that cannot be used stops parley with one line naming the file and the fix.
func TestRoleErrors(t *testing.T) {
	const work = "[profiles.work]\nbase_url = \"http://127.0.0.1:1/v1\"\nmodel = \"wm\"\n"
	rows := []struct {
		name  string
		cfg   string
		files map[string]string
		fl    config.Flags
		want  string // HOME stands for the PARLEY_HOME
	}{
		{"unknown --role", work, map[string]string{"poet.md": "Verse."}, config.Flags{Role: "nope", Profile: "work"},
			`unknown role "nope" (--role): add HOME/roles/nope.md or [roles.nope] to HOME/config.toml (known: poet)`},
		{"defined twice", work + "[roles.poet]\nsystem = \"x\"\n", map[string]string{"poet.md": "Verse."}, config.Flags{Profile: "work"},
			`role "poet" is defined twice, in HOME/roles/poet.md and as [roles.poet] in HOME/config.toml: remove one`},
		{"unknown front matter key", work, map[string]string{"poet.md": "---\ntemperature: 2\n---\nVerse."}, config.Flags{Profile: "work"},
			`role HOME/roles/poet.md line 2: unknown key "temperature": use profile or model`},
		{"a front matter line that is no key", work, map[string]string{"poet.md": "---\nverse please\n---\nVerse."}, config.Flags{Profile: "work"},
			`role HOME/roles/poet.md line 2: want "profile: NAME" or "model: NAME", or --- to end the front matter`},
		{"unclosed front matter", work, map[string]string{"poet.md": "---\nmodel: m\n"}, config.Flags{Profile: "work"},
			`role HOME/roles/poet.md: the front matter has no closing --- line: add one before the prompt`},
		{"no prompt", work, map[string]string{"poet.md": "---\nmodel: m\n---\n\n"}, config.Flags{Profile: "work"},
			`role HOME/roles/poet.md has no system prompt: write it after the front matter`},
		{"a table without a prompt", work + "[roles.poet]\nmodel = \"m\"\n", nil, config.Flags{Profile: "work"},
			`config HOME/config.toml: [roles.poet] has no system prompt: add system = "…"`},
		{"an unknown key in a table", work + "[roles.poet]\nsystem = \"x\"\nprompt = \"y\"\n", nil, config.Flags{Profile: "work"},
			`config HOME/config.toml: unknown key "roles.poet.prompt"; fix the file (it was not changed)`},
		{"a role's profile that is not defined", work, map[string]string{"poet.md": "---\nprofile: play\n---\nVerse."}, config.Flags{Profile: "work"},
			`role "poet" (HOME/roles/poet.md): profile "play" is not defined: define [profiles.play] in HOME/config.toml or use a preset: deepseek, gemini, groq, llamacpp, lmstudio, mistral, ollama, openai, openrouter, vllm`},
		{"a profile's role that is not defined", work + "role = \"poet\"\n", nil, config.Flags{Profile: "work"},
			`config HOME/config.toml: profile "work": role "poet" is not defined: add HOME/roles/poet.md or [roles.poet]`},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			_, home, err := resolveRoles(t, row.cfg, row.files, row.fl)
			if want := strings.ReplaceAll(row.want, "HOME", home); err == nil || err.Error() != want {
				t.Fatalf("error %v\nwant  %s", err, want)
			}
		})
	}
}
