package config_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"parley/agent"
	"parley/internal/config"
)

// resolve writes cfg (when not empty) as config.toml under a PARLEY_HOME of its own and
// resolves fl in an environment holding only that home and env ("NAME=value").
func resolve(t *testing.T, cfg string, fl config.Flags, env ...string) (config.Resolved, string, error) {
	t.Helper()
	files := map[string]string{}
	if cfg != "" {
		files["config.toml"] = cfg
	}
	home := writeHome(t, files)
	r, err := resolveIn(home, fl, env...)
	return r, filepath.Join(home, "config.toml"), err
}

// writeHome makes a PARLEY_HOME holding files (path under the home → text).
func writeHome(t *testing.T, files map[string]string) string {
	t.Helper()
	home := t.TempDir()
	for name, text := range files {
		path := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// resolveIn resolves fl in an environment holding only PARLEY_HOME=home and env ("NAME=value").
func resolveIn(home string, fl config.Flags, env ...string) (config.Resolved, error) {
	vars := map[string]string{"PARLEY_HOME": home}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	return config.Resolve(fl, func(k string) string { return vars[k] })
}

// resolvedRow is a configuration, flags and environment, and what one field of the
// resolution must be.
type resolvedRow struct {
	name  string
	cfg   string
	fl    config.Flags
	env   []string
	field func(config.Resolved) any
	want  any
}

// checkResolved resolves each row, in parallel subtests, and checks its field.
func checkResolved(t *testing.T, rows []resolvedRow, resolve func(*testing.T, resolvedRow) (config.Resolved, string, error)) {
	t.Helper()
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			r, _, err := resolve(t, row)
			if err != nil {
				t.Fatal(err)
			}
			if got := row.field(r); !reflect.DeepEqual(got, row.want) {
				t.Errorf("got %#v, want %#v", got, row.want)
			}
		})
	}
}

// What each precedence row looks at.
var (
	baseURL = func(r config.Resolved) any { return r.Endpoint.BaseURL }
	model   = func(r config.Resolved) any { return r.Endpoint.Model }
	name    = func(r config.Resolved) any { return r.Endpoint.Name }
	demo    = func(r config.Resolved) any { return r.Endpoint.Demo }
	// key is the variable the key is read from and the key read.
	key      = func(r config.Resolved) any { return r.Endpoint.KeyEnv + "=" + r.Endpoint.APIKey }
	keyErr   = func(r config.Resolved) any { return r.Endpoint.KeyErr }
	headers  = func(r config.Resolved) any { return r.Endpoint.Headers }
	contextW = func(r config.Resolved) any { return r.Endpoint.ContextTokens }
	timeouts = func(r config.Resolved) any {
		return [3]time.Duration{r.Endpoint.ConnectTimeout, r.Endpoint.HeaderTimeout, r.Endpoint.FirstDeltaTimeout}
	}
	limits = func(r config.Resolved) any { return r.Limits }
	vision = func(r config.Resolved) any {
		if r.Endpoint.Vision == nil {
			return "unset"
		}
		return *r.Endpoint.Vision
	}
	prefill = func(r config.Resolved) any {
		if r.Endpoint.Prefill == nil {
			return "unset"
		}
		return *r.Endpoint.Prefill
	}
	others = func(r config.Resolved) any {
		var names []string
		for _, e := range r.Others {
			names = append(names, e.Name+" "+e.Model)
		}
		return strings.Join(names, ", ")
	}
	reasoning = func(r config.Resolved) any {
		e := r.Endpoint
		on := "unset"
		if e.Reasoning != nil {
			on = map[bool]string{true: "on", false: "off"}[*e.Reasoning]
		}
		return []any{on, e.SendReasoning, e.MaxTokens, e.ReasoningEffort, e.StreamIdleTimeout, e.FirstDeltaDeadline()}
	}
	sampling = func(r config.Resolved) any {
		f := func(p *float64) any {
			if p == nil {
				return "unset"
			}
			return *p
		}
		return []any{f(r.Endpoint.Temperature), f(r.Endpoint.TopP)}
	}
	fallback = func(r config.Resolved) any {
		if r.Fallback == nil {
			return "none"
		}
		return r.Fallback.Name + " " + r.Fallback.BaseURL + " " + r.Fallback.Model
	}
	priceOf  = func(m string) func(config.Resolved) any { return func(r config.Resolved) any { return r.Prices.Of(m) } }
	chosen   = func(r config.Resolved) any { return r.Chosen }
	loopback = "http://127.0.0.1:9/v1"
)

// Flags over the environment over the profile over its preset over the defaults, for every
// field Resolve returns. The file's default profile sits under the environment; a profile
// named by --profile is a flag, and sits over it.
func TestPrecedence(t *testing.T) {
	const (
		defaultP = "profile = \"p\"\n[profiles.p]\nbase_url = \"http://127.0.0.1:1/v1\"\nmodel = \"pm\"\n"
		envURL   = "OPENAI_BASE_URL=http://127.0.0.1:2/v1"
		table    = "[limits]\nmax_spend_session = 1\nmax_spend_day = 2\nmax_tokens_session = 3\nmax_tokens_day = 4\n"
	)
	rows := []resolvedRow{
		// The endpoint: nothing configured is the demo; a key alone is OpenAI.
		{"default: the demo", "", config.Flags{}, nil, demo, true},
		{"default: the demo has no URL yet", "", config.Flags{}, nil, baseURL, ""},
		{"default: the demo's name", "", config.Flags{}, nil, name, "demo"},
		{"--demo over a configured endpoint", defaultP, config.Flags{Demo: true, BaseURL: loopback}, []string{envURL}, demo, true},
		{"a profile without a URL is still the demo", "profile = \"p\"\n[profiles.p]\nmodel = \"pm\"\n", config.Flags{}, nil, demo, true},
		{"the only profile is used when none is named", "[profiles.only]\nbase_url = \"http://127.0.0.1:4/v1\"\nmodel = \"om\"\n", config.Flags{}, nil, baseURL, "http://127.0.0.1:4/v1"},
		{"the only profile is used, by its name", "[profiles.only]\nbase_url = \"http://127.0.0.1:4/v1\"\nmodel = \"om\"\n", config.Flags{}, nil, name, "only"},
		{"default: OPENAI_API_KEY alone is OpenAI", "", config.Flags{}, []string{"OPENAI_API_KEY=sk"}, baseURL, "https://api.openai.com/v1"},
		{"default: OPENAI_API_KEY alone is named openai", "", config.Flags{}, []string{"OPENAI_API_KEY=sk"}, name, "openai"},
		{"default: OPENAI_API_KEY alone is said", "", config.Flags{}, []string{"OPENAI_API_KEY=sk"}, chosen,
			"using OPENAI_API_KEY: gpt-4o-mini at api.openai.com · --demo for the offline demo"},
		{"default: OPENAI_API_KEY alone, with the model asked for", "", config.Flags{}, []string{"OPENAI_API_KEY=sk", "PARLEY_MODEL=gpt-4o"}, chosen,
			"using OPENAI_API_KEY: gpt-4o at api.openai.com · --demo for the offline demo"},
		{"a profile chosen is not said", "", config.Flags{Profile: "openai"}, []string{"OPENAI_API_KEY=sk"}, chosen, ""},
		{"the demo is not said", "", config.Flags{}, nil, chosen, ""},

		{"base_url: preset", "", config.Flags{Profile: "ollama"}, nil, baseURL, "http://127.0.0.1:11434/v1"},
		{"base_url: a profile's preset", "[profiles.p]\npreset = \"ollama\"\n", config.Flags{Profile: "p"}, nil, baseURL, "http://127.0.0.1:11434/v1"},
		{"base_url: profile over its preset", "[profiles.p]\npreset = \"ollama\"\nbase_url = \"http://127.0.0.1:1/v1\"\n", config.Flags{Profile: "p"}, nil, baseURL, "http://127.0.0.1:1/v1"},
		{"base_url: env over the default profile", defaultP, config.Flags{}, []string{envURL}, baseURL, "http://127.0.0.1:2/v1"},
		{"base_url: --profile over env", defaultP, config.Flags{Profile: "p"}, []string{envURL}, baseURL, "http://127.0.0.1:1/v1"},
		{"base_url: flag over env and --profile", defaultP, config.Flags{Profile: "p", BaseURL: loopback}, []string{envURL}, baseURL, loopback},
		{"base_url: the trailing slash goes", "", config.Flags{BaseURL: "http://127.0.0.1:9/v1/", Model: "m"}, nil, baseURL, loopback},

		{"model: default for the demo", "", config.Flags{}, nil, model, "parley-demo"},
		{"model: flag over the demo's", "", config.Flags{Demo: true, Model: "fm"}, nil, model, "fm"},
		{"model: default for OpenAI", "", config.Flags{}, []string{"OPENAI_API_KEY=sk"}, model, "gpt-4o-mini"},
		{"model: preset", "", config.Flags{Profile: "groq"}, nil, model, "llama-3.3-70b-versatile"},
		{"model: profile over its preset", "[profiles.p]\npreset = \"groq\"\nmodel = \"pm\"\n", config.Flags{Profile: "p"}, nil, model, "pm"},
		{"model: env over the default profile", defaultP, config.Flags{}, []string{"PARLEY_MODEL=em"}, model, "em"},
		{"model: --profile over env", defaultP, config.Flags{Profile: "p"}, []string{"PARLEY_MODEL=em"}, model, "pm"},
		{"model: flag over env and --profile", defaultP, config.Flags{Profile: "p", Model: "fm"}, []string{"PARLEY_MODEL=em"}, model, "fm"},
		{"model: none named is left to the endpoint", "", config.Flags{BaseURL: loopback}, nil, model, ""},

		{"name: the profile", defaultP, config.Flags{}, nil, name, "p"},
		{"name: the preset", "", config.Flags{Profile: "groq"}, nil, name, "groq"},
		{"name: flags alone are custom", "", config.Flags{BaseURL: loopback, Model: "m"}, nil, name, "custom"},

		{"key: default variable, unset", "", config.Flags{BaseURL: loopback, Model: "m"}, nil, key, "OPENAI_API_KEY="},
		{"key: default variable, from env", "", config.Flags{BaseURL: loopback, Model: "m"}, []string{"OPENAI_API_KEY=sk"}, key, "OPENAI_API_KEY=sk"},
		{"key: preset's variable", "", config.Flags{Profile: "groq"}, []string{"GROQ_API_KEY=gk", "OPENAI_API_KEY=sk"}, key, "GROQ_API_KEY=gk"},
		{"key: profile's variable over its preset's", "[profiles.p]\npreset = \"groq\"\napi_key_env = \"MINE\"\n", config.Flags{Profile: "p"}, []string{"MINE=mk", "GROQ_API_KEY=gk"}, key, "MINE=mk"},
		{"key: flag's variable over the profile's", "[profiles.p]\npreset = \"groq\"\napi_key_env = \"MINE\"\n", config.Flags{Profile: "p", APIKeyEnv: "FLAGKEY"}, []string{"MINE=mk", "FLAGKEY=fk"}, key, "FLAGKEY=fk"},
		{"key: loopback needs none", "", config.Flags{BaseURL: loopback, Model: "m"}, nil, keyErr, ""},
		{"key: localhost needs none", "", config.Flags{BaseURL: "http://localhost:9/v1", Model: "m"}, nil, keyErr, ""},
		{"key: a named variable must be set", "", config.Flags{BaseURL: loopback, Model: "m", APIKeyEnv: "NOPE"}, nil, keyErr,
			"NOPE is not set: export NOPE=… or name another variable with --api-key-env"},
		{"key: a remote endpoint needs one", "", config.Flags{BaseURL: "https://llm.example/v1", Model: "m"}, nil, keyErr,
			"no API key for llm.example: export OPENAI_API_KEY=… or name the variable with --api-key-env"},

		{"headers: preset", "", config.Flags{Profile: "openrouter"}, nil, headers, map[string]string{"X-Title": "parley"}},
		{"headers: profile's merged over its preset's", "[profiles.p]\npreset = \"openrouter\"\nheaders = { \"X-Title\" = \"mine\", \"X-Team\" = \"core\" }\n", config.Flags{Profile: "p"}, nil, headers,
			map[string]string{"X-Title": "mine", "X-Team": "core"}},

		{"timeouts: default zero (the client's own apply)", "", config.Flags{BaseURL: loopback, Model: "m"}, nil, timeouts, [3]time.Duration{}},
		{"timeouts: profile's, kept under the flags", "profile = \"p\"\n[profiles.p]\nconnect_timeout = \"1s\"\nheader_timeout = \"2m\"\nfirst_delta_timeout = \"3s\"\n", config.Flags{BaseURL: loopback, Model: "m"}, nil, timeouts,
			[3]time.Duration{time.Second, 2 * time.Minute, 3 * time.Second}},

		{"context_tokens: default none", "", config.Flags{BaseURL: loopback, Model: "m"}, nil, contextW, 0},
		{"context_tokens: profile's", "[profiles.p]\npreset = \"ollama\"\ncontext_tokens = 8192\n", config.Flags{Profile: "p"}, nil, contextW, 8192},
		{"context_window: profile's", "[profiles.p]\npreset = \"ollama\"\ncontext_window = 4096\n", config.Flags{Profile: "p"}, nil, contextW, 4096},
		{"context_window: the same as context_tokens", "[profiles.p]\npreset = \"ollama\"\ncontext_window = 4096\ncontext_tokens = 4096\n", config.Flags{Profile: "p"}, nil, contextW, 4096},

		{"price: built in", "", config.Flags{BaseURL: loopback, Model: "gpt-4o"}, nil, priceOf("gpt-4o"), agent.Price{Input: 2.50, Output: 10}},
		{"price: profile's over the built-in", "[profiles.p]\npreset = \"openai\"\nmodel = \"gpt-4o\"\nprice_input = 1\n", config.Flags{Profile: "p"}, nil, priceOf("gpt-4o"), agent.Price{Input: 1, Output: 10}},
		{"price: profile's for a model without one", "[profiles.p]\npreset = \"ollama\"\nmodel = \"house\"\nprice_input = 2\nprice_output = 3\n", config.Flags{Profile: "p"}, nil, priceOf("house"), agent.Price{Input: 2, Output: 3}},
		{"price: profile's goes to the model the flag chose", "profile = \"p\"\n[profiles.p]\npreset = \"ollama\"\nmodel = \"house\"\nprice_input = 2\n", config.Flags{Model: "other"}, nil, priceOf("other"), agent.Price{Input: 2}},
		{"price: none for an unknown model", "", config.Flags{BaseURL: loopback, Model: "house"}, nil, priceOf("house"), agent.Price{}},

		{"reasoning: default by the model's name", "", config.Flags{BaseURL: loopback, Model: "qwq"}, nil, reasoning,
			[]any{"unset", false, 0, "", time.Duration(0), 10 * time.Minute}},
		{"reasoning: default for another model", "", config.Flags{BaseURL: loopback, Model: "llama3"}, nil, reasoning,
			[]any{"unset", false, 0, "", time.Duration(0), 90 * time.Second}},
		{"reasoning: profile's", "[profiles.p]\npreset = \"ollama\"\nmodel = \"house\"\nreasoning = true\nsend_reasoning = true\nmax_tokens = 4096\nreasoning_effort = \"high\"\nstream_idle_timeout = \"2s\"\n",
			config.Flags{Profile: "p"}, nil, reasoning, []any{"on", true, 4096, "high", 2 * time.Second, 10 * time.Minute}},
		{"reasoning: off for a reasoning name, with its own deadline", "[profiles.p]\npreset = \"ollama\"\nmodel = \"qwen3\"\nreasoning = false\nfirst_delta_timeout = \"3s\"\n",
			config.Flags{Profile: "p"}, nil, reasoning, []any{"off", false, 0, "", time.Duration(0), 3 * time.Second}},
		{"sampling: default unset", "", config.Flags{BaseURL: loopback, Model: "m"}, nil, sampling, []any{"unset", "unset"}},
		{"sampling: profile's, 0 kept", "[profiles.p]\npreset = \"ollama\"\ntemperature = 0.0\ntop_p = 0.9\n", config.Flags{Profile: "p"}, nil, sampling, []any{0.0, 0.9}},
		{"vision: unset, the server says", "[profiles.p]\npreset = \"ollama\"\n", config.Flags{Profile: "p"}, nil, vision, "unset"},
		{"vision: the profile's", "[profiles.p]\npreset = \"ollama\"\nvision = false\n", config.Flags{Profile: "p"}, nil, vision, false},
		{"prefill: unset, the server says", "[profiles.p]\npreset = \"ollama\"\n", config.Flags{Profile: "p"}, nil, prefill, "unset"},
		{"prefill: the profile's", "[profiles.p]\npreset = \"ollama\"\nprefill = true\n", config.Flags{Profile: "p"}, nil, prefill, true},
		{"others: every other profile", "[profiles.p]\npreset = \"ollama\"\nmodel = \"a\"\n[profiles.q]\nbase_url = \"http://127.0.0.1:7/v1\"\nmodel = \"b\"\n",
			config.Flags{Profile: "p"}, nil, others, "q b"},
		{"fallback: none", "", config.Flags{BaseURL: loopback, Model: "m"}, nil, fallback, "none"},
		{"fallback: a profile", "[profiles.p]\npreset = \"ollama\"\nfallback = \"q\"\n[profiles.q]\nbase_url = \"http://127.0.0.1:7/v1\"\nmodel = \"small\"\n",
			config.Flags{Profile: "p"}, nil, fallback, "q http://127.0.0.1:7/v1 small"},
		{"fallback: a preset", "[profiles.p]\npreset = \"openai\"\nmodel = \"gpt-4o\"\nfallback = \"groq\"\n", config.Flags{Profile: "p"}, []string{"OPENAI_API_KEY=sk", "GROQ_API_KEY=gk"},
			fallback, "groq https://api.groq.com/openai/v1 llama-3.3-70b-versatile"},

		{"limits: default none", "", config.Flags{}, nil, limits, agent.Limits{}},
		{"limits: [limits]", table, config.Flags{BaseURL: loopback, Model: "m"}, nil, limits, agent.Limits{SessionCost: 1, DayCost: 2, SessionTokens: 3, DayTokens: 4}},
		{"limits: [limits] hold for the demo", table, config.Flags{}, nil, limits, agent.Limits{SessionCost: 1, DayCost: 2, SessionTokens: 3, DayTokens: 4}},
		{"limits: profile's over [limits]", table + "[profiles.p]\npreset = \"ollama\"\nmax_spend_session = 10\nmax_tokens_day = 40\n", config.Flags{Profile: "p"}, nil, limits,
			agent.Limits{SessionCost: 10, DayCost: 2, SessionTokens: 3, DayTokens: 40}},
		{"limits: flags over the profile's", table + "[profiles.p]\npreset = \"ollama\"\nmax_spend_day = 20\nmax_tokens_session = 30\n", config.Flags{Profile: "p", MaxSpend: 200, MaxTokensSession: 300}, nil, limits,
			agent.Limits{SessionCost: 1, DayCost: 200, SessionTokens: 300, DayTokens: 4}},
	}
	checkResolved(t, rows, func(t *testing.T, row resolvedRow) (config.Resolved, string, error) {
		return resolve(t, row.cfg, row.fl, row.env...)
	})
}

// A session continued runs on the profile and model it last ran on: its profile stands where
// the file's default does, its model over the environment's; a flag that chooses the endpoint
// (--profile, --base-url, --demo) leaves both, and a flag's or a role's model goes on its
// profile.
func TestAContinuedSessionKeepsItsProfileAndModel(t *testing.T) {
	const cfg = "profile = \"p\"\n[profiles.p]\nbase_url = \"http://127.0.0.1:1/v1\"\nmodel = \"pm\"\n" +
		"[profiles.q]\nbase_url = \"http://127.0.0.1:2/v1\"\nmodel = \"qm\"\nrole = \"terse\"\n" +
		"[roles.terse]\nsystem = \"Be brief.\"\nmodel = \"tm\"\n[roles.big]\nsystem = \"Think.\"\nmodel = \"bm\"\n"
	on := config.Continued{Session: "3fa2c1d0", Profile: "q", Model: "sm"}
	where := func(r config.Resolved) any { return r.Endpoint.Name + " " + r.Endpoint.Model }
	rows := []resolvedRow{
		{"its profile and model", cfg, config.Flags{Continued: on}, nil, where, "q sm"},
		{"its model over the environment's", cfg, config.Flags{Continued: on}, []string{"PARLEY_MODEL=em"}, where, "q sm"},
		{"a preset it ran on", cfg, config.Flags{Continued: config.Continued{Session: "3fa2c1d0", Profile: "groq", Model: "gm"}}, nil, where, "groq gm"},
		{"--model on its profile", cfg, config.Flags{Continued: on, Model: "fm"}, nil, where, "q fm"},
		{"a role's model on its profile", cfg, config.Flags{Continued: on, Role: "big"}, nil, where, "q bm"},
		{"--profile instead", cfg, config.Flags{Continued: on, Profile: "p"}, nil, where, "p pm"},
		{"--base-url instead", cfg, config.Flags{Continued: on, BaseURL: loopback, Model: "m"}, nil, where, "p m"}, // the default profile, under the flags
		{"--demo instead", cfg, config.Flags{Continued: on, Demo: true}, nil, where, "demo parley-demo"},
		{"none stored: as a new session", cfg, config.Flags{Continued: config.Continued{Session: "3fa2c1d0"}}, nil, where, "p pm"},
	}
	checkResolved(t, rows, func(t *testing.T, row resolvedRow) (config.Resolved, string, error) {
		return resolve(t, row.cfg, row.fl, row.env...)
	})
	_, path, err := resolve(t, cfg, config.Flags{Continued: config.Continued{Session: "3fa2c1d0", Profile: "gone", Model: "x"}})
	if want := `session 3fa2c1d0 ran on profile "gone", which ` + path + ` no longer defines: pass --profile NAME to continue it on another`; err == nil || err.Error() != want {
		t.Errorf("a profile gone: %v\nwant %s", err, want)
	}
}

// Every configuration parley refuses, with the one line that says so; the file is left as
// it was. CONFIG stands for the file's path.
func TestValidation(t *testing.T) {
	const fix = "; fix the file (it was not changed)"
	const known = "deepseek, gemini, groq, llamacpp, lmstudio, mistral, ollama, openai, openrouter, vllm"
	rows := []struct {
		name string
		cfg  string
		fl   config.Flags
		env  []string
		want string
	}{
		{"syntax", "[profiles.local]\nbase_url = \"http://127.0.0.1:1/v1\"\nmodel = \n", config.Flags{}, nil,
			`config CONFIG line 3: expected value but found '\n' instead` + fix},
		{"unknown key", "x = 1\n", config.Flags{}, nil, `config CONFIG: unknown key "x"` + fix},
		{"unknown key in a profile", "[profiles.x]\nfoo = 1\n", config.Flags{}, nil, `config CONFIG: unknown key "profiles.x.foo"` + fix},
		{"unknown key in [limits]", "[limits]\nmax_spend = 1\n", config.Flags{}, nil, `config CONFIG: unknown key "limits.max_spend"` + fix},
		{"mistyped key in a profile", "[profiles.a]\nmodle = \"m\"\n", config.Flags{}, nil,
			`config CONFIG: unknown key "profiles.a.modle" — did you mean model? Fix the file (it was not changed)`},
		{"mistyped key in [limits]", "[limits]\nmax_spend_dya = 1\n", config.Flags{}, nil,
			`config CONFIG: unknown key "limits.max_spend_dya" — did you mean max_spend_day? Fix the file (it was not changed)`},
		{"mistyped key in a role", "[roles.poet]\nsytem = \"x\"\n", config.Flags{}, nil,
			`config CONFIG: unknown key "roles.poet.sytem" — did you mean system? Fix the file (it was not changed)`},
		{"mistyped key in a rule", "[[classify]]\nname = \"r\"\nstatsu = 500\n", config.Flags{}, nil,
			`config CONFIG: unknown key "classify.statsu" — did you mean status? Fix the file (it was not changed)`},
		{"mistyped top-level key", "profil = \"a\"\n", config.Flags{}, nil,
			`config CONFIG: unknown key "profil" — did you mean profile? Fix the file (it was not changed)`},
		{"bad duration", "[profiles.a]\nconnect_timeout = \"soon\"\n", config.Flags{}, nil, `config CONFIG line 2: "soon" is not a duration like 30s or 2m` + fix},
		{"wrong type", "[profiles.a]\nmodel = 5\n", config.Flags{}, nil,
			`config CONFIG: toml: line 2 (last key "profiles.a.model"): incompatible types: TOML value has type int64; destination has type string` + fix},
		{"unknown preset", "[profiles.a]\npreset = \"nope\"\n", config.Flags{}, nil, `config CONFIG: profile "a": unknown preset "nope" (known: ` + known + `)`},
		{"negative limit in [limits]", "[limits]\nmax_tokens_day = -5\n", config.Flags{}, nil, `config CONFIG: [limits]: max_tokens_day is -5; a limit is at least 0 (0 sets none)` + fix},
		{"negative limit in a profile", "[profiles.x]\nmax_spend_session = -1\n", config.Flags{}, nil, `config CONFIG: profile "x": max_spend_session is -1; a limit is at least 0 (0 sets none)` + fix},
		{"negative input price", "[profiles.x]\nprice_input = -1\n", config.Flags{}, nil, `config CONFIG: profile "x": price_input is -1; a price is at least 0` + fix},
		{"negative output price", "[profiles.x]\nprice_output = -0.5\n", config.Flags{}, nil, `config CONFIG: profile "x": price_output is -0.5; a price is at least 0` + fix},
		{"negative context window", "[profiles.x]\ncontext_tokens = -1\n", config.Flags{}, nil, `config CONFIG: profile "x": context_tokens is -1; a context window is at least 1 token` + fix},
		{"negative context_window", "[profiles.x]\ncontext_window = -1\n", config.Flags{}, nil, `config CONFIG: profile "x": context_window is -1; a context window is at least 1 token` + fix},
		{"two context windows", "[profiles.x]\ncontext_window = 4096\ncontext_tokens = 8192\n", config.Flags{}, nil, `config CONFIG: profile "x": context_window is 4096 and context_tokens 8192; keep context_window alone` + fix},
		{"negative max_tokens", "[profiles.x]\nmax_tokens = -1\n", config.Flags{}, nil, `config CONFIG: profile "x": max_tokens is -1; a reply needs at least 1 token (leave it out for no limit)` + fix},
		{"unknown reasoning effort", "[profiles.x]\nreasoning_effort = \"max\"\n", config.Flags{}, nil, `config CONFIG: profile "x": reasoning_effort is "max"; use low, medium or high` + fix},
		{"temperature out of range", "[profiles.x]\ntemperature = 3.0\n", config.Flags{}, nil, `config CONFIG: profile "x": temperature is 3; use a number from 0 to 2` + fix},
		{"top_p out of range", "[profiles.x]\ntop_p = 0.0\n", config.Flags{}, nil, `config CONFIG: profile "x": top_p is 0; use a number above 0, at most 1` + fix},
		{"negative duration", "[profiles.a]\nfirst_delta_timeout = \"-5s\"\n", config.Flags{}, nil, `config CONFIG line 2: "-5s" is negative; use a duration like 30s or 2m` + fix},
		{"bad duration for the idle timeout", "[profiles.a]\nstream_idle_timeout = \"long\"\n", config.Flags{}, nil, `config CONFIG line 2: "long" is not a duration like 30s or 2m` + fix},
		{"fallback that is no profile", "[profiles.p]\npreset = \"ollama\"\nfallback = \"nope\"\n", config.Flags{Profile: "p"}, nil,
			`fallback "nope" is not a profile: define [profiles.nope] in CONFIG or use a preset: ` + known},
		{"unknown profile from --profile", "", config.Flags{Profile: "nope"}, nil,
			`unknown profile "nope" (--profile): define [profiles.nope] in CONFIG or use a preset: ` + known},
		{"unknown default profile", "profile = \"nope\"\n", config.Flags{}, nil,
			`unknown profile "nope" (profile in CONFIG): define [profiles.nope] in CONFIG or use a preset: ` + known},
		{"bad URL from the flag", "", config.Flags{BaseURL: "ftp//nowhere", Model: "m"}, nil,
			`invalid base URL "ftp//nowhere": want http(s)://host[:port]/v1 (from --base-url, OPENAI_BASE_URL or base_url in CONFIG)`},
		{"bad URL from env", "", config.Flags{}, []string{"OPENAI_BASE_URL=nope", "PARLEY_MODEL=m"},
			`invalid base URL "nope": want http(s)://host[:port]/v1 (from --base-url, OPENAI_BASE_URL or base_url in CONFIG)`},
		{"URL without a host from a profile", "[profiles.x]\nbase_url = \"http:///v1\"\nmodel = \"m\"\n", config.Flags{Profile: "x"}, nil,
			`invalid base URL "http:///v1": want http(s)://host[:port]/v1 (from --base-url, OPENAI_BASE_URL or base_url in CONFIG)`},
		{"fallback without a model", "[profiles.p]\npreset = \"ollama\"\nfallback = \"q\"\n[profiles.q]\nbase_url = \"http://127.0.0.1:7/v1\"\n", config.Flags{Profile: "p"}, nil,
			`fallback "q" has no model: set model in [profiles.q] in CONFIG`},
		{"negative max_attachment_bytes", "max_attachment_bytes = -1\n", config.Flags{}, nil,
			`config CONFIG: max_attachment_bytes is -1; use a size in bytes above 0 (leave it out for 262144)`},
		{"reading_width too narrow", "reading_width = 5\n", config.Flags{}, nil, `config CONFIG: reading_width is 5; use 20 columns or more (leave it out for 100)`},
		{"theme unknown", "theme = \"solarized\"\n", config.Flags{}, nil, `config CONFIG: theme is "solarized"; use light, dark or auto (leave it out for auto)`},
		{"notify unknown", "notify = \"beep\"\n", config.Flags{}, nil, `config CONFIG: notify is "beep"; use bell, osc9 or off (leave it out for bell)`},

		{"several profiles, none named", "[profiles.work]\npreset = \"openai\"\n[profiles.local]\npreset = \"ollama\"\n", config.Flags{}, nil,
			`CONFIG defines profiles local, work and names none to use: set profile = "local" in it, or pass --profile NAME`},

		// What passed the check and failed only at send time, as a retryable network error.
		{"temperature nan", "[profiles.x]\ntemperature = nan\n", config.Flags{}, nil, `config CONFIG: profile "x": temperature is NaN; use a finite number` + fix},
		{"top_p inf", "[profiles.x]\ntop_p = inf\n", config.Flags{}, nil, `config CONFIG: profile "x": top_p is +Inf; use a finite number` + fix},
		{"price nan", "[profiles.x]\nprice_input = nan\n", config.Flags{}, nil, `config CONFIG: profile "x": price_input is NaN; use a finite number` + fix},
		{"spend limit inf", "[limits]\nmax_spend_day = inf\n", config.Flags{}, nil, `config CONFIG: [limits]: max_spend_day is +Inf; use a finite amount of US dollars` + fix},
		{"header name with a space", "[profiles.x]\nheaders = { \"X Org\" = \"a\" }\n", config.Flags{}, nil,
			`config CONFIG: profile "x": header name "X Org" is not one HTTP can send (letters, digits and -, no spaces or colons)` + fix},
		{"header value with a newline", "[profiles.x]\nheaders = { \"X-Org\" = \"a\\nb\" }\n", config.Flags{}, nil,
			`config CONFIG: profile "x": header X-Org has a line break or control character in its value; write it on one line` + fix},
		{"headers as a string", "[profiles.x]\nheaders = \"X-Org: a\"\n", config.Flags{}, nil,
			`config CONFIG: profile "x": headers must be a table, like headers = { "X-Org" = "…" }` + fix},
		{"api_key_env that is no name", "[profiles.x]\napi_key_env = \"sk-abc=1\"\n", config.Flags{}, nil,
			`config CONFIG: profile "x": api_key_env is "sk-abc=1"; name an environment variable, like OPENAI_API_KEY (the key itself never goes in the config)` + fix},
		{"empty base_url", "[profiles.x]\nbase_url = \"\"\nmodel = \"m\"\n", config.Flags{Profile: "x"}, []string{"OPENAI_API_KEY=sk-paid"},
			`config CONFIG: profile "x": base_url is empty, which would send to the default's instead; set it or remove the line (the file was not changed)`},
		{"empty model", "[profiles.x]\nbase_url = \"http://127.0.0.1:8080/v1\"\nmodel = \"\"\n", config.Flags{Profile: "x"}, nil,
			`config CONFIG: profile "x": model is empty, which would send to the default's instead; set it or remove the line (the file was not changed)`},
		{"empty api_key_env", "[profiles.x]\npreset = \"groq\"\napi_key_env = \"\"\n", config.Flags{Profile: "x"}, nil,
			`config CONFIG: profile "x": api_key_env is empty, which would send to the default's instead; set it or remove the line (the file was not changed)`},
		{"a key in the config", "[profiles.x]\npreset = \"groq\"\napi_key = \"sk-abc\"\n", config.Flags{Profile: "x"}, nil,
			`config CONFIG: profile "x": api_key is not read: keys are read from the environment variable api_key_env names, like api_key_env = "OPENAI_API_KEY"; move the key there and remove the line (the file was not changed)`},
		{"--api-key-env that is no name", "", config.Flags{BaseURL: "http://127.0.0.1:8080/v1", Model: "m", APIKeyEnv: "A=B"}, nil,
			`--api-key-env is "A=B"; name an environment variable, like OPENAI_API_KEY (the key itself never goes in the config)`},
		{"port out of range", "", config.Flags{BaseURL: "http://127.0.0.1:99999/v1", Model: "m"}, nil,
			`invalid base URL "http://127.0.0.1:99999/v1": port 99999 is not from 1 to 65535; want http(s)://host[:port]/v1 (from --base-url, OPENAI_BASE_URL or base_url in CONFIG)`},
		{"URL with a query", "", config.Flags{BaseURL: "https://api.example.com/v1?key=SECRET", Model: "m"}, nil,
			`invalid base URL "https://api.example.com/v1?key=[redacted]": a query or fragment would end up before the path parley adds; remove it (a key goes in api_key_env, other values in headers); want http(s)://host[:port]/v1 (from --base-url, OPENAI_BASE_URL or base_url in CONFIG)`},
		{"URL with a fragment", "", config.Flags{BaseURL: "https://api.example.com/v1#top", Model: "m"}, nil,
			`invalid base URL "https://api.example.com/v1#top": a query or fragment would end up before the path parley adds; remove it (a key goes in api_key_env, other values in headers); want http(s)://host[:port]/v1 (from --base-url, OPENAI_BASE_URL or base_url in CONFIG)`},
		{"URL with a trailing space", "[profiles.x]\nbase_url = \"http://127.0.0.1:8080/v1 \"\nmodel = \"m\"\n", config.Flags{Profile: "x"}, nil,
			`invalid base URL "http://127.0.0.1:8080/v1 ": it has spaces in it; want http(s)://host[:port]/v1 (from --base-url, OPENAI_BASE_URL or base_url in CONFIG)`},
		{"URL with a password is never shown", "", config.Flags{BaseURL: "ftp://u:PASSWORD@host/v1", Model: "m"}, nil,
			`invalid base URL "ftp://[redacted]@host/v1": want http(s)://host[:port]/v1 (from --base-url, OPENAI_BASE_URL or base_url in CONFIG)`},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			_, path, err := resolve(t, row.cfg, row.fl, row.env...)
			if want := strings.ReplaceAll(row.want, "CONFIG", path); err == nil || err.Error() != want {
				t.Fatalf("error %v\nwant  %s", err, want)
			}
			if row.cfg == "" {
				return
			}
			if b, err := os.ReadFile(path); err != nil || string(b) != row.cfg {
				t.Errorf("the file changed: %q, %v", b, err)
			}
		})
	}
	t.Run("unreadable file", func(t *testing.T) {
		home := t.TempDir()
		path := filepath.Join(home, "config.toml")
		if err := os.Mkdir(path, 0o700); err != nil {
			t.Fatal(err)
		}
		_, err := config.Resolve(config.Flags{}, func(k string) string { return map[string]string{"PARLEY_HOME": home}[k] })
		if want := "cannot read config " + path + ": it is a directory, not a file; move it away or make it a file"; err == nil || err.Error() != want {
			t.Fatalf("error %v, want %s", err, want)
		}
	})
}

// TestConfigIsARegularFileOfBoundedSize: a config.toml that is a FIFO would block the start
// for good, and one linked to /dev/zero would be read without end; both are refused, named.
func TestConfigIsARegularFileOfBoundedSize(t *testing.T) {
	rows := []struct {
		name string
		make func(path string) error
		want string
	}{
		{"a FIFO", func(path string) error { return syscall.Mkfifo(path, 0o600) },
			"it is a named pipe, not a file; replace it with a file"},
		{"a link to /dev/zero", func(path string) error { return os.Symlink("/dev/zero", path) },
			"it is a device, not a file; replace it with a file"},
		{"too large", func(path string) error {
			return os.WriteFile(path, []byte("# "+strings.Repeat("x", config.MaxConfigBytes)+"\n"), 0o600)
		}, "it is larger than 1 MiB; a config is a few KiB: check what was written there"},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			path := filepath.Join(home, "config.toml")
			if err := row.make(path); err != nil {
				t.Fatal(err)
			}
			_, err := resolveIn(home, config.Flags{})
			if want := "cannot read config " + path + ": " + row.want; err == nil || err.Error() != want {
				t.Fatalf("error %v\nwant  %s", err, want)
			}
		})
	}
	t.Run("a link to a file is read", func(t *testing.T) {
		t.Parallel()
		home := t.TempDir()
		real := filepath.Join(home, "real.toml")
		if err := os.WriteFile(real, []byte("[profiles.x]\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"m\"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(real, filepath.Join(home, "config.toml")); err != nil {
			t.Fatal(err)
		}
		r, err := resolveIn(home, config.Flags{Profile: "x"})
		if err != nil || r.Endpoint.Model != "m" {
			t.Fatalf("resolved %+v, %v", r.Endpoint, err)
		}
	})
}

func TestPaths(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	rows := []struct {
		name string
		env  map[string]string
		want config.Paths
	}{
		{"PARLEY_HOME over XDG", map[string]string{"PARLEY_HOME": "/p", "XDG_CONFIG_HOME": "/c"},
			config.Paths{Config: "/p/config.toml", DB: "/p/history.db", Log: "/p/parley.log"}},
		{"XDG", map[string]string{"XDG_CONFIG_HOME": "/c", "XDG_DATA_HOME": "/d", "XDG_STATE_HOME": "/s"},
			config.Paths{Config: "/c/parley/config.toml", DB: "/d/parley/history.db", Log: "/s/parley/parley.log"}},
		{"XDG defaults under the home directory", map[string]string{"XDG_DATA_HOME": "/d"},
			config.Paths{Config: home + "/.config/parley/config.toml", DB: "/d/parley/history.db", Log: home + "/.local/state/parley/parley.log"}},
	}
	for _, row := range rows {
		got, err := config.ResolvePaths(func(k string) string { return row.env[k] })
		if err != nil || got != row.want {
			t.Errorf("%s: %+v, %v; want %+v", row.name, got, err, row.want)
		}
	}
	// Without a home directory, what would be under it cannot be found: one line, however many
	// directories it was wanted for.
	t.Setenv("HOME", "")
	for _, env := range []map[string]string{{"XDG_CONFIG_HOME": "/c", "XDG_DATA_HOME": "/d"}, {}} {
		_, err := config.ResolvePaths(func(k string) string { return env[k] })
		if want := "cannot find a home directory ($HOME is not defined): set PARLEY_HOME"; err == nil || err.Error() != want {
			t.Errorf("without a home, with %v: %v, want %s", env, err, want)
		}
	}
}
