//go:build !race

package contracttests_test

// raceSlowdown is how many times longer the self-tests give the embedded sandbox's millisecond timings
// under the race detector: without it, once.
const raceSlowdown = 1
