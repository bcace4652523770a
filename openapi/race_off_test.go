//go:build !race

package openapi

// raceEnabled lets slow differential tests sample their cases under the race detector.
const raceEnabled = false
