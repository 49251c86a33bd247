package arena

import (
	"errors"
	"strings"
	"testing"
)

func TestMapAtFixedAddressAndClash(t *testing.T) {
	base := Base + 2<<40
	a, err := Map(base, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if a.Addr() != base {
		t.Fatalf("arena at %#x, want %#x", a.Addr(), base)
	}
	mem := a.Bytes()
	mem[0], mem[len(mem)-1] = 1, 2 // the mapping is writable end to end
	if _, err := Map(base, 1<<20); err == nil {
		t.Fatal("mapping the same address twice succeeded")
	} else if !errors.Is(err, ErrAddressTaken) || !strings.Contains(err.Error(), "0x") {
		t.Fatalf("clash error %q does not say the address is taken", err)
	}
}
