package contracttests

// StartEmbeddedWith lets the external tests start the embedded sandbox with a fault (the self-test).
var StartEmbeddedWith = startEmbedded
