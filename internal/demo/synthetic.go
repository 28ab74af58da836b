package demo

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Generated returns the reply a server started with Tokens n and OpenCode openCode streams,
// whole: for tests that compare what a client showed or stored with what was sent.
func Generated(n int, openCode bool) string {
	return strings.Join(syntheticTokens(n, openCode), "")
}

// syntheticTokens returns the first n chunks of a generated markdown document shaped like the
// long replies models give: long paragraphs, nested lists, tables, long fenced code blocks in
// several languages, headings at two levels and quotes. With openCode the reply opens a code
// block after a short introduction and runs on inside it to the end, as a model writing one
// long file does. The document is always the same, so benchmark runs compare.
func syntheticTokens(n int, openCode bool) []string {
	g := newGenerator()
	toks := make([]string, 0, n+512)
	var b strings.Builder
	if openCode {
		g.paragraph(&b, 3)
		b.WriteString("```go\n")
		toks = appendTokens(toks, b.String())
		for len(toks) < n {
			b.Reset()
			g.goFunction(&b)
			toks = appendTokens(toks, b.String())
		}
		return toks[:n:n]
	}
	for section := 1; len(toks) < n; section++ {
		b.Reset()
		g.section(&b, section)
		toks = appendTokens(toks, b.String())
	}
	return toks[:n:n]
}

// generator writes the parts of a synthetic reply from a fixed random sequence.
type generator struct{ rng *rand.Rand }

func newGenerator() *generator { return &generator{rng: rand.New(rand.NewPCG(1, 2))} }

var vocabulary = strings.Fields(`the a stream reply model token request server client retry
	wait status banner message history session operator endpoint context cancel run attempt
	render screen input output latency budget limit quota cache buffer chunk delta frame
	quickly slowly always never only every each first last next honest visible quiet safe
	sends reads writes waits keeps shows stores drops counts parses renders streams retries
	with without before after until while because when where and but or so then`)

func (g *generator) word() string { return vocabulary[g.rng.IntN(len(vocabulary))] }

func (g *generator) wordList(n int) []string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = g.word()
	}
	return ws
}

func (g *generator) words(n int) string { return strings.Join(g.wordList(n), " ") }

func (g *generator) sentence() string {
	n := 6 + g.rng.IntN(14)
	ws := g.wordList(n)
	switch g.rng.IntN(5) {
	case 0:
		ws[g.rng.IntN(n)] = "`" + g.word() + "()`"
	case 1:
		w := g.word()
		ws[g.rng.IntN(n)] = fmt.Sprintf("[%s](https://example.com/docs/%s)", w, w)
	case 2:
		ws[g.rng.IntN(n)] = "**" + g.word() + "**"
	case 3:
		ws[g.rng.IntN(n)] = "_" + g.word() + "_"
	}
	s := strings.Join(ws, " ")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

func (g *generator) paragraph(b *strings.Builder, sentences int) {
	for i := range sentences {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(g.sentence())
	}
	b.WriteString("\n\n")
}

// section writes a heading and a mix of the blocks a long answer holds.
func (g *generator) section(b *strings.Builder, section int) {
	fmt.Fprintf(b, "## %d. The %s %s\n\n", section, g.word(), g.word())
	g.paragraph(b, 6+g.rng.IntN(10))
	for part := range 2 + g.rng.IntN(3) {
		if g.rng.IntN(2) == 0 {
			fmt.Fprintf(b, "### %d.%d %s\n\n", section, part+1, strings.ToUpper(g.word()[:1])+g.word()[1:]+" "+g.word())
		}
		switch g.rng.IntN(5) {
		case 0:
			g.nestedList(b)
		case 1:
			g.table(b)
		case 2:
			g.code(b)
		case 3:
			fmt.Fprintf(b, "> %s %s\n>\n> %s\n\n", g.sentence(), g.sentence(), g.sentence())
		case 4:
			g.numbered(b)
		}
		g.paragraph(b, 3+g.rng.IntN(8))
	}
}

func (g *generator) nestedList(b *strings.Builder) {
	for range 3 + g.rng.IntN(4) {
		fmt.Fprintf(b, "- **%s**: %s %s\n", g.word(), g.sentence(), g.sentence())
		for range g.rng.IntN(4) {
			fmt.Fprintf(b, "  - %s `%s`\n", g.sentence(), g.word())
			for range g.rng.IntN(3) {
				fmt.Fprintf(b, "    - %s\n", g.sentence())
			}
		}
	}
	b.WriteString("\n")
}

func (g *generator) numbered(b *strings.Builder) {
	for i := range 3 + g.rng.IntN(6) {
		fmt.Fprintf(b, "%d. %s %s\n", i+1, g.sentence(), g.sentence())
	}
	b.WriteString("\n")
}

func (g *generator) table(b *strings.Builder) {
	cols := 3 + g.rng.IntN(3)
	row := func(cell func(int) string) {
		b.WriteString("|")
		for c := range cols {
			b.WriteString(" " + cell(c) + " |")
		}
		b.WriteString("\n")
	}
	row(func(int) string { return strings.ToUpper(g.word()[:1]) + g.word()[1:] })
	row(func(int) string { return "---" })
	for range 5 + g.rng.IntN(16) {
		row(func(c int) string {
			switch c {
			case 0:
				return "`" + g.word() + "`"
			case 1:
				return fmt.Sprintf("%d ms", 1+g.rng.IntN(900))
			}
			return g.words(1 + g.rng.IntN(5))
		})
	}
	b.WriteString("\n")
}

// code writes a fenced block of 30 to 120 lines in one of several languages.
func (g *generator) code(b *strings.Builder) {
	lang := []string{"go", "python", "rust", "sql", "bash", "json"}[g.rng.IntN(6)]
	fmt.Fprintf(b, "```%s\n", lang)
	for lines := 30 + g.rng.IntN(91); lines > 0; {
		var part strings.Builder
		switch lang {
		case "go":
			g.goFunction(&part)
		case "python":
			fmt.Fprintf(&part, "def %s_%s(client, %s):\n    \"\"\"%s\"\"\"\n    for attempt in range(3):\n        if client.%s(%s) is None:\n            continue\n        return {\"%s\": attempt, \"ok\": True}\n    raise RuntimeError(\"%s\")\n\n",
				g.word(), g.word(), g.word(), g.sentence(), g.word(), g.word(), g.word(), g.words(3))
		case "rust":
			fmt.Fprintf(&part, "pub fn %s(ctx: &mut Context, input: &str) -> Result<usize, Error> {\n    let %s = input.lines().filter(|l| !l.is_empty()).count();\n    if %s > ctx.limit {\n        return Err(Error::new(\"%s\"));\n    }\n    Ok(%s)\n}\n\n",
				g.word(), g.word(), g.word(), g.words(3), g.word())
		case "sql":
			fmt.Fprintf(&part, "SELECT s.id, count(m.id) AS %s\nFROM sessions s\nJOIN messages m ON m.session_id = s.id\nWHERE m.%s LIKE '%%%s%%'\nGROUP BY s.id\nORDER BY %s DESC\nLIMIT %d;\n\n",
				g.word(), g.word(), g.word(), g.word(), 10+g.rng.IntN(90))
		case "bash":
			fmt.Fprintf(&part, "for f in ./%s/*.md; do\n  if grep -q '%s' \"$f\"; then\n    echo \"%s: $f\"\n  fi\ndone\n", g.word(), g.word(), g.word())
		case "json":
			fmt.Fprintf(&part, "{\n  \"%s\": %d,\n  \"%s\": \"%s\",\n  \"%s\": [\"%s\", \"%s\"],\n  \"nested\": {\"%s\": true}\n}\n", g.word(), g.rng.IntN(1000), g.word(), g.words(3), g.word(), g.word(), g.word(), g.word())
			lines = 0 // one JSON document
		}
		lines -= strings.Count(part.String(), "\n")
		b.WriteString(part.String())
	}
	b.WriteString("```\n\n")
}

var goBody = []string{
	"\tif msg == \"\" {",
	"\t\treturn errors.New(\"empty message\")",
	"\t}",
	"\tfor attempt := 1; attempt <= 3; attempt++ {",
	"\t\tif err := c.send(ctx, msg); err != nil {",
	"\t\t\tlog.Printf(\"attempt %d of %d: %v\", attempt, 3, err)",
	"\t\t\tcontinue",
	"\t\t}",
	"\t\tbreak",
	"\t}",
	"\treturn c.flush(ctx)",
	"}",
}

func (g *generator) goFunction(b *strings.Builder) {
	name := g.word()
	fmt.Fprintf(b, "// %s%s %s\nfunc (c *Client) %s%s(ctx context.Context, msg string) error {\n",
		strings.ToUpper(name[:1]), name[1:], g.sentence(), strings.ToUpper(name[:1]), name[1:])
	for _, l := range goBody[:4+g.rng.IntN(len(goBody)-4)] {
		b.WriteString(l + "\n")
	}
	if !strings.HasSuffix(b.String(), "}\n") {
		b.WriteString("}\n")
	}
	b.WriteString("\n")
}
