package api

// RateLimitFields returns the three RateLimit response fields, which a service that limits request
// rates sends together on every answer to keys it accepted (the document's RateLimitLimit header).
func RateLimitFields() []string {
	return []string{HeaderRateLimitLimit, HeaderRateLimitRemaining, HeaderRateLimitReset}
}
