//go:build race

package contracttests_test

// raceSlowdown is how many times longer the self-tests give the embedded sandbox's millisecond timings
// under the race detector, which makes a program 2 to 20 times slower (the Go documentation's "Data
// Race Detector", "Runtime Overheads"); ten faulty runs side by side on two cores then left a
// settlement's webhook undelivered after 3 s (CI, 2026-11-28), a finding about the machine, not the fault.
const raceSlowdown = 4
