package harness

import (
	"hash/fnv"
	"math/rand/v2"
)

// Generated inputs are drawn from one seed per run (Config.Seed, `--seed`), so that a run can be
// repeated exactly: each check draws from its own stream, made of the seed and the check's id, so that
// what a check sends does not depend on which other checks run, in what order, or how many at once.

// Rand returns the check's own random stream, drawn from the run's seed and the check's id. Each call
// returns a new stream starting at the same point: a check that needs several draws keeps the one it
// got.
func (t *T) Rand() *rand.Rand { return CheckRand(t.suite.cfg.Seed, t.check.ID) }

// CheckRand is the stream of check id under seed.
func CheckRand(seed uint64, id string) *rand.Rand {
	h := fnv.New64a()
	_, _ = h.Write([]byte(id))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// Seed is the run's seed (Config.Seed, or the one the run drew): printed in every report and in every
// failure of a generated check, and given back to `--seed` to repeat the run.
func (t *T) Seed() uint64 { return t.suite.cfg.Seed }

// drawSeed gives a run without a seed one, drawn at random; zero is never a seed, so that "no seed"
// cannot be mistaken for one.
func drawSeed() uint64 {
	for {
		if s := rand.Uint64(); s != 0 {
			return s
		}
	}
}

// DefaultGenerated is how many generated requests a generated check sends when the run does not say
// (Config.Generated): enough for the boundary cases of every request body the document has (the
// largest, a payment's, needs about a dozen) and as many random draws again, which costs the embedded
// sandbox about a second of the run; a run in CI gets them without asking, and `--generated` raises it
// for a deeper search.
const DefaultGenerated = 24
