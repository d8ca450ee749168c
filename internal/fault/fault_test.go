package fault

import "testing"

func TestSet(t *testing.T) {
	var zero Set
	if !zero.Empty() || zero.Has(TokenReusable) {
		t.Fatal("the zero Set commits a fault")
	}
	s := Of(TokenReusable, NoServerPings)
	if s.Empty() || !s.Has(TokenReusable) || !s.Has(NoServerPings) || s.Has(TokenTTLIgnored) {
		t.Fatalf("Of(TokenReusable, NoServerPings) = %v", s.on)
	}
	if _, ok := Lookup("no-such-fault"); ok {
		t.Fatal("Lookup found an unknown fault")
	}
}
