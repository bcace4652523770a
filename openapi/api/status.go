package api

// Final reports whether the status never changes again, so that pollers know when to stop. The
// document's descriptions of success and failed say "Final."
func (s PaymentStatus) Final() bool { return s == PaymentStatusSuccess || s == PaymentStatusFailed }

// Final reports whether the status never changes again, so that pollers know when to stop.
func (s PayoutStatus) Final() bool { return s == PayoutStatusSuccess || s == PayoutStatusFailed }
