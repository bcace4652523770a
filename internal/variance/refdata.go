package variance

import (
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
)

// leaveOutReferenceData picks the countries and banks a ReferenceSubset variant does not support:
// each country with odds of 2 in 5 and each bank of a supported country 1 in 3, by a hash of the seed
// and the id, then gives back the first bank of the first supported country that has one when no
// supported country would keep a bank (the bank test values need one), and the first country when
// none would be left; every other seed, the country listed first keeps no bank.
func (st *state) leaveOutReferenceData(s *sandbox.Server) {
	odds := func(id string, in, of uint64) bool {
		h := fnv.New64a()
		_, _ = fmt.Fprintf(h, "%d\x00ref\x00%s", st.v.Seed, id)
		return h.Sum64()%of < in
	}
	countries := s.Countries()
	var kept []sandbox.Country
	for _, c := range countries {
		if odds(c.ID, 2, 5) {
			st.leftOutRef[c.ID], st.leftOutCodes[c.CountryCode] = true, true
			for _, b := range s.Banks(c.CountryCode) {
				st.leftOutRef[b.ID] = true
			}
			continue
		}
		kept = append(kept, c)
	}
	if len(kept) == 0 {
		kept = countries[:1]
		delete(st.leftOutRef, kept[0].ID)
		delete(st.leftOutCodes, kept[0].CountryCode)
		for _, b := range s.Banks(kept[0].CountryCode) {
			delete(st.leftOutRef, b.ID)
		}
	}
	known := map[string]bool{}
	for _, c := range countries {
		known[c.CountryCode] = true
	}
	for a := 'A'; a <= 'Z' && st.unsupportedCode == ""; a++ {
		for b := 'A'; b <= 'Z'; b++ {
			if code := string([]rune{a, b}); !known[code] {
				st.unsupportedCode = code
				break
			}
		}
	}
	var firstBank string
	banksKept := 0
	for _, c := range kept {
		for _, b := range s.Banks(c.CountryCode) {
			if firstBank == "" {
				firstBank = b.ID
			}
			if odds(b.ID, 1, 3) {
				st.leftOutRef[b.ID] = true
			} else {
				banksKept++
			}
		}
	}
	if banksKept == 0 && firstBank != "" {
		delete(st.leftOutRef, firstBank)
	}
	// Every other seed, the country listed first has no bank (a country where payouts go to wallets
	// only), as long as another supported country keeps one.
	first := kept[0]
	if st.v.ListsReversed {
		first = kept[len(kept)-1]
	}
	if odds("first-without-banks", 1, 2) {
		elsewhere := false
		for _, c := range kept {
			for _, b := range s.Banks(c.CountryCode) {
				elsewhere = elsewhere || (c.ID != first.ID && !st.leftOutRef[b.ID])
			}
		}
		if elsewhere {
			for _, b := range s.Banks(first.CountryCode) {
				st.leftOutRef[b.ID] = true
			}
		}
	}
}

// bankCode names a bank by its country and the last part of its sandbox id: `ZM.ZANACO`.
func bankCode(b sandbox.Bank) string {
	name := b.ID[strings.LastIndexByte(b.ID, '_')+1:]
	return b.CountryCode + "." + strings.ToUpper(name)
}
