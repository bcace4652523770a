package valuegen

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every pattern of the document, at its lengths: what Pattern writes matches, at the length asked
// where the pattern allows it, and cycle mode shows a class's whole alphabet in a few strings.
func TestPatternGenMatchesTheDocumentsPatterns(t *testing.T) {
	patterns := map[string][2]int{ // pattern → a length it allows, another
		`^[A-Za-z0-9][A-Za-z0-9_.:-]*$`: {1, 64},
		`^[1-9][0-9]{7,14}$`:            {8, 15},
		`^[A-Z]{2}$`:                    {2, 2},
		`^[A-Za-z0-9]+$`:                {4, 34},
		`^whsec_(?:(?:[A-Za-z0-9+/]{4}){8,20}(?:[A-Za-z0-9+/]{4}|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2}==)?|(?:[A-Za-z0-9+/]{4}){21}[A-Za-z0-9+/]{2}==)$`: {38, 94},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for pattern, ns := range patterns {
		g, err := NewPattern(pattern)
		require.NoError(t, err)
		for _, n := range ns {
			for _, cycle := range []bool{false, true} {
				s, ok := g.Generate(r, n, cycle, 3)
				require.True(t, ok, "%s at %d", pattern, n)
				assert.Regexp(t, pattern, s)
				assert.Equal(t, n, utf8.RuneCountInString(s), "%s: %q", pattern, s)
			}
		}
	}
	g, err := NewPattern(`^[A-Za-z0-9][A-Za-z0-9_.:-]*$`)
	require.NoError(t, err)
	var all strings.Builder
	for i := 0; i*63 < g.alphabetSize(); i++ {
		s, ok := g.Generate(r, 64, true, i*63)
		require.True(t, ok)
		all.WriteString(s[1:])
	}
	for _, c := range "_.:-azAZ09" {
		assert.Contains(t, all.String(), string(c), "cycle mode covers the alphabet")
	}
}
