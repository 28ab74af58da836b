package agent

import "testing"

func TestFormats(t *testing.T) {
	cases := []struct{ got, want string }{
		{FormatCost(0), "$0"},
		{FormatCost(0.0001), "<$0.001"},
		{FormatCost(0.042), "$0.042"},
		{FormatCost(0.9994), "$0.999"},
		{FormatCost(12.345), "$12.35"},
		{FormatTokens(950), "950"},
		{FormatTokens(1000), "1k"},
		{FormatTokens(12_345), "12.3k"},
		{FormatTokens(2_360_000), "2.4M"},
	}
	for i, c := range cases {
		if c.got != c.want {
			t.Errorf("row %d: %q, want %q", i, c.got, c.want)
		}
	}
}
