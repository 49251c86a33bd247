package ending

import (
	"errors"
	"fmt"
	"testing"

	"github.com/cape-go/cape/transport"
)

func TestOf(t *testing.T) {
	closed := fmt.Errorf("receive: %w", transport.ErrPeerClosed)
	leftClosed := errors.Join(ErrLeft, closed)
	for _, c := range []struct {
		name     string
		err      error
		tolerant bool
		want     Ending
	}{
		{"job done", ErrJobDone, false, Ending{Code: 0}},
		{"job done, wrapped", fmt.Errorf("%w before this node was admitted", ErrJobDone), false, Ending{Code: 0}},
		{"aborted", fmt.Errorf("%w (node 2 failed)", ErrJobAborted), false,
			Ending{Code: 1, Msg: "stopping: the job was aborted (node 2 failed)"}},
		{"left", fmt.Errorf("%w (left out of the live set)", ErrLeft), false,
			Ending{Code: LeftExit, Msg: "the master declared this node lost (left out of the live set); exiting"}},
		{"left beats a closed connection", leftClosed, true, Ending{Code: LeftExit, Msg: leftClosed.Error() + "; exiting"}},
		{"closed, tolerant slave", closed, true,
			Ending{Code: LeftExit, Msg: "the master closed the connection (the job ended, or this node was declared lost); exiting"}},
		{"closed, strict job: a failure", closed, false, Ending{Code: 1, Msg: closed.Error(), Failure: true}},
		{"other", errors.New("something broke"), true, Ending{Code: 1, Msg: "something broke", Failure: true}},
	} {
		got := Of(c.err, c.tolerant)
		if got != c.want {
			t.Errorf("%s: Of = %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestMasterGone(t *testing.T) {
	if got := MasterGone(fmt.Errorf("x: %w", transport.ErrPeerClosed)); got != (Ending{Code: 0}) {
		t.Errorf("orderly goodbye: %+v, want status 0 and no line", got)
	}
	got := MasterGone(errors.New("read tcp: connection reset"))
	if want := (Ending{Code: 1, Msg: "lost the master: read tcp: connection reset"}); got != want {
		t.Errorf("lost: %+v, want %+v", got, want)
	}
}
