//go:build linux

package transport

import (
	"io"
	"net"
	"os"
	"syscall"
	"unsafe"
)

// rawIO reads and writes small amounts on a socket with raw system calls
// (the socket is non-blocking; the wait for data or buffer space, and its
// deadline, stay the poller's, through syscall.RawConn). The runtime's
// ordinary system call path wakes its monitor thread (sysmon) whenever the
// process had been idle, so that a node waking up for each message of a
// loop of small regions woke two threads instead of one; the raw path
// leaves it asleep. Large transfers keep the ordinary path, which lets the
// runtime hand the processor to other goroutines while the kernel copies.
type rawIO struct {
	rc syscall.RawConn

	rb     []byte // read's buffer
	rn     int
	rerr   error
	readFn func(fd uintptr) bool

	iovBuf  []syscall.Iovec // writev's pieces, kept from one write to the next
	iov     []syscall.Iovec // the pieces of iovBuf not yet written
	werr    error
	writeFn func(fd uintptr) bool
}

// rawMax is the largest read or write done on the raw path.
const rawMax = 64 << 10

func newRawIO(nc net.Conn) *rawIO {
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		return nil
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	r := &rawIO{rc: rc}
	r.readFn, r.writeFn = r.readFD, r.writeFD
	return r
}

// read is a socket read of at most len(p) bytes, as net.Conn.Read; done
// is false, and nothing read, if p is too large for the raw path.
func (r *rawIO) read(p []byte) (n int, done bool, err error) {
	if len(p) > rawMax || len(p) == 0 {
		return 0, false, nil
	}
	r.rb, r.rn, r.rerr = p, 0, nil
	err = r.rc.Read(r.readFn)
	r.rb = nil
	if err == nil {
		err = r.rerr
	}
	return r.rn, true, err
}

func (r *rawIO) readFD(fd uintptr) bool {
	for {
		n, _, errno := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&r.rb[0])), uintptr(len(r.rb)))
		switch {
		case errno == syscall.EINTR:
			continue
		case errno == syscall.EAGAIN:
			return false // wait for data
		case errno != 0:
			r.rerr = os.NewSyscallError("read", errno)
			return true
		case n == 0:
			r.rerr = io.EOF
			return true
		}
		r.rn = int(n)
		return true
	}
}

// writev writes all of bufs, as net.Buffers.WriteTo; done is false, and
// nothing written, if they are too large for the raw path (or too many).
func (r *rawIO) writev(bufs [][]byte) (done bool, err error) {
	total := 0
	for _, b := range bufs {
		total += len(b)
	}
	if total > rawMax || len(bufs) > 1024 {
		return false, nil
	}
	r.iovBuf = r.iovBuf[:0]
	for _, b := range bufs {
		if len(b) > 0 {
			r.iovBuf = append(r.iovBuf, syscall.Iovec{Base: &b[0], Len: uint64(len(b))})
		}
	}
	if len(r.iovBuf) == 0 {
		return true, nil
	}
	r.iov, r.werr = r.iovBuf, nil
	err = r.rc.Write(r.writeFn)
	clear(r.iovBuf) // do not pin the caller's buffers
	r.iov = nil
	if err == nil {
		err = r.werr
	}
	return true, err
}

func (r *rawIO) writeFD(fd uintptr) bool {
	for len(r.iov) > 0 {
		n, _, errno := syscall.RawSyscall(syscall.SYS_WRITEV, fd, uintptr(unsafe.Pointer(&r.iov[0])), uintptr(len(r.iov)))
		switch {
		case errno == syscall.EINTR:
			continue
		case errno == syscall.EAGAIN:
			return false // wait for buffer space
		case errno != 0:
			r.werr = os.NewSyscallError("writev", errno)
			return true
		}
		// Drop what was written.
		for k := uint64(n); k > 0; {
			if k < r.iov[0].Len {
				r.iov[0].Base = (*byte)(unsafe.Add(unsafe.Pointer(r.iov[0].Base), k))
				r.iov[0].Len -= k
				break
			}
			k -= r.iov[0].Len
			r.iov = r.iov[1:]
		}
	}
	return true
}
