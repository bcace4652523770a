package valuegen

import (
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// Pattern writes strings that match a pattern of the document. It walks Go's parse of the pattern
// (regexp/syntax), which reads the document's patterns as ECMA-262 does (they keep to the subset both
// share: TestPatternsMeanTheSameInEveryDialect in package openapi). Every string it returns matches: it is checked
// against the compiled pattern, and a pattern it cannot satisfy at a length gives no string.
type Pattern struct {
	tree  *syntax.Regexp
	match *regexp.Regexp
}

// NewPattern compiles a pattern of the document.
func NewPattern(pattern string) (*Pattern, error) {
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, err
	}
	match, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	return &Pattern{tree: tree, match: match}, nil
}

// Match reports whether s matches the pattern.
func (g *Pattern) Match(s string) bool { return g.match.MatchString(s) }

// drawMode says how a character class gives its characters: at random, or in the order of the
// class from an offset, so that a few strings hold the class's whole alphabet.
type drawMode struct {
	r      *rand.Rand
	cycle  bool
	offset int
	// taken counts, per class node, the characters taken so far in cycle mode.
	taken map[*syntax.Regexp]int
}

// Generate returns a matching string of about n characters (the nearest length the pattern allows),
// and whether it found one. In cycle mode each character class gives its characters in order from
// offset.
func (g *Pattern) Generate(r *rand.Rand, n int, cycle bool, offset int) (string, bool) {
	for range 8 {
		var b strings.Builder
		m := &drawMode{r: r, cycle: cycle, offset: offset, taken: map[*syntax.Regexp]int{}}
		emit(g.tree, n, m, &b)
		if s := b.String(); g.match.MatchString(s) {
			return s, true
		}
	}
	return "", false
}

// lengths returns the fewest and the most characters re can match (most -1: unbounded).
func lengths(re *syntax.Regexp) (lo, hi int) {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune), len(re.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1, 1
	case syntax.OpCapture:
		return lengths(re.Sub[0])
	case syntax.OpConcat:
		for _, s := range re.Sub {
			l, h := lengths(s)
			lo += l
			if hi >= 0 {
				if h < 0 {
					hi = -1
				} else {
					hi += h
				}
			}
		}
		return lo, hi
	case syntax.OpAlternate:
		lo, hi = -1, 0
		for _, s := range re.Sub {
			l, h := lengths(s)
			if lo < 0 || l < lo {
				lo = l
			}
			if hi >= 0 && (h < 0 || h > hi) {
				hi = h
			}
		}
		return max(lo, 0), hi
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		minCount, maxCount := repeatBounds(re)
		l, h := lengths(re.Sub[0])
		lo = minCount * l
		switch {
		case maxCount < 0 && h != 0:
			hi = -1
		case h < 0:
			hi = -1
		default:
			hi = maxCount * h
		}
		return lo, hi
	}
	return 0, 0 // anchors, empty match
}

// repeatBounds returns how often a repetition repeats (max -1: unbounded).
func repeatBounds(re *syntax.Regexp) (lo, hi int) {
	switch re.Op {
	case syntax.OpStar:
		return 0, -1
	case syntax.OpPlus:
		return 1, -1
	case syntax.OpQuest:
		return 0, 1
	}
	return re.Min, re.Max
}

// within clamps n to [lo, hi] (hi -1: no upper bound).
func within(n, lo, hi int) int {
	n = max(n, lo)
	if hi >= 0 {
		n = min(n, hi)
	}
	return n
}

// emit writes a string matching re of about n characters.
func emit(re *syntax.Regexp, n int, m *drawMode, b *strings.Builder) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, c := range re.Rune {
			b.WriteRune(c)
		}
	case syntax.OpCharClass:
		b.WriteRune(classRune(re, m))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteRune(rune('a' + m.r.IntN(26)))
	case syntax.OpCapture:
		emit(re.Sub[0], n, m, b)
	case syntax.OpConcat:
		emitConcat(re.Sub, n, m, b)
	case syntax.OpAlternate:
		// A branch that can be n long, else any.
		var fit []*syntax.Regexp
		for _, s := range re.Sub {
			if l, h := lengths(s); n >= l && (h < 0 || n <= h) {
				fit = append(fit, s)
			}
		}
		if len(fit) == 0 {
			fit = re.Sub
		}
		emit(fit[m.r.IntN(len(fit))], n, m, b)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := repeatBounds(re)
		l, h := lengths(re.Sub[0])
		per := max(l, 1)
		if h > 0 && h == l {
			per = h
		}
		count := within(n/per, lo, hi)
		if count == 0 && n > 0 && (hi < 0 || hi > 0) && l == 0 {
			count = 1
		}
		for i := range count {
			each := n / max(count, 1)
			if i == count-1 {
				each = n - each*(count-1)
			}
			emit(re.Sub[0], each, m, b)
		}
	}
}

// emitConcat shares n characters among the parts of a concatenation: each gets its fewest, and what
// is left goes to the parts that can take more, in order.
func emitConcat(subs []*syntax.Regexp, n int, m *drawMode, b *strings.Builder) {
	share := make([]int, len(subs))
	left := n
	for i, s := range subs {
		share[i], _ = lengths(s)
		left -= share[i]
	}
	for i, s := range subs {
		if left <= 0 {
			break
		}
		l, h := lengths(s)
		room := left
		if h >= 0 {
			room = min(room, h-l)
		}
		share[i] += room
		left -= room
	}
	for i, s := range subs {
		emit(s, share[i], m, b)
	}
}

// classRune takes a character of a class: at random, or the next in the class's order (cycle mode).
func classRune(re *syntax.Regexp, m *drawMode) rune {
	size := 0
	for i := 0; i+1 < len(re.Rune); i += 2 {
		size += int(re.Rune[i+1]-re.Rune[i]) + 1
	}
	if size == 0 {
		return 'a'
	}
	k := m.r.IntN(size)
	if m.cycle {
		k = (m.offset + m.taken[re]) % size
		m.taken[re]++
	}
	for i := 0; i+1 < len(re.Rune); i += 2 {
		width := int(re.Rune[i+1]-re.Rune[i]) + 1
		if k < width {
			c := re.Rune[i] + rune(k)
			if c > 0x10FFFF || !utf8.ValidRune(c) {
				return 'a'
			}
			return c
		}
		k -= width
	}
	return 'a'
}

// alphabetSize is how many characters the largest class of the pattern has: how many strings of a
// length cycle mode needs to show them all.
func (g *Pattern) alphabetSize() int {
	biggest := 0
	var walk func(re *syntax.Regexp)
	walk = func(re *syntax.Regexp) {
		if re.Op == syntax.OpCharClass {
			size := 0
			for i := 0; i+1 < len(re.Rune); i += 2 {
				size += int(re.Rune[i+1]-re.Rune[i]) + 1
			}
			biggest = max(biggest, size)
		}
		for _, s := range re.Sub {
			walk(s)
		}
	}
	walk(g.tree)
	return biggest
}
