package receivertests

// GeneratedBodies is how many bodies the generated check of event type t sends under seed: each enum
// value, each optional field absent and present, the undeclared fields, the bounds and the drawn ones.
func GeneratedBodies(seed uint64, t string) (int, error) {
	g, err := newGrader(Config{URL: "http://127.0.0.1:1", Seed: seed})
	if err != nil {
		return 0, err
	}
	vs, err := g.variants(t)
	return len(vs), err
}
