package runner

// OnQueued makes f hear of every goroutine that starts waiting for a slot (resume: a check back from
// Idle, else one about to start) and returns the function that stops it.
func OnQueued(f func(resume bool)) (restore func()) {
	old := queued
	queued = f
	return func() { queued = old }
}

// OnReleased makes f hear of every slot given back and returns the function that stops it.
func OnReleased(f func()) (restore func()) {
	old := released
	released = f
	return func() { released = old }
}
