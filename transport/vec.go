package transport

// The vectored write path: a message whose payload is given in pieces is
// framed without copying its large pieces (see frameWriter.writeVec).

// minRefPiece is the smallest piece sent by reference, as frames of its
// own; smaller pieces are copied into the writer's staging buffer with
// their neighbours, so that a payload of many small pieces does not cost a
// frame (56 bytes and two tags) each.
const minRefPiece = 4 << 10

// maxBatchFrames bounds the frames one writev carries.
const maxBatchFrames = 32

// vecFrame is the header and tags of one frame of a batch.
type vecFrame struct {
	hdr  [headerLen]byte
	htag [tagLen]byte
	ctag [tagLen]byte
}

// vecState is the frameWriter's storage for vectored messages, kept from
// one message to the next.
type vecState struct {
	stage  []byte     // small pieces being gathered into one chunk
	frames []vecFrame // headers and tags of the batch being built
	iov    [][]byte   // the batch's pieces for writev
}

// payloadLen is the total length of bufs.
func payloadLen(bufs [][]byte) int {
	n := 0
	for _, b := range bufs {
		n += len(b)
	}
	return n
}

// writeVec writes one message whose payload is the concatenation of bufs,
// total bytes in all, as writeMessage would frame a payload: chunks of at
// most chunkLen bytes, the last one flagged. A piece of at least
// minRefPiece bytes is framed in place; smaller ones are copied into the
// staging buffer. Frames are written in batches, one writev each. bufs are
// not modified.
func (w *frameWriter) writeVec(kind uint8, seq uint64, bufs [][]byte, total int) error {
	v := &w.vec
	if v.stage == nil {
		v.stage = make([]byte, 0, chunkLen)
	}
	v.frames, v.iov, v.stage = v.frames[:0], v.iov[:0], v.stage[:0]
	sent := 0 // payload bytes framed so far
	frame := func(chunk []byte) error {
		if len(v.frames) == maxBatchFrames {
			if err := w.flushVec(); err != nil {
				return err
			}
		}
		sent += len(chunk)
		h := header{kind: kind, chunk: uint32(len(chunk)), seq: seq, total: uint64(total)}
		if sent == total {
			h.flags = flagFin
		}
		v.frames = append(v.frames, vecFrame{})
		f := &v.frames[len(v.frames)-1]
		h.put(&f.hdr)
		w.mac.sum(&f.htag, f.hdr[:])
		v.iov = append(v.iov, f.hdr[:], f.htag[:])
		if len(chunk) > 0 {
			w.mac.sum(&f.ctag, chunk)
			v.iov = append(v.iov, chunk, f.ctag[:])
		}
		return nil
	}
	// stageOut frames the staged bytes. The staging buffer is reused only
	// once the batch holding them is written.
	stageOut := func() error {
		if len(v.stage) == 0 {
			return nil
		}
		if err := frame(v.stage); err != nil {
			return err
		}
		if err := w.flushVec(); err != nil {
			return err
		}
		v.stage = v.stage[:0]
		return nil
	}
	if total == 0 {
		if err := frame(nil); err != nil {
			return err
		}
		return w.flushVec()
	}
	for _, p := range bufs {
		if len(p) < minRefPiece {
			for len(p) > 0 {
				k := copy(v.stage[len(v.stage):cap(v.stage)], p)
				v.stage, p = v.stage[:len(v.stage)+k], p[k:]
				if len(v.stage) == cap(v.stage) {
					if err := stageOut(); err != nil {
						return err
					}
				}
			}
			continue
		}
		if err := stageOut(); err != nil {
			return err
		}
		for len(p) > 0 {
			n := min(chunkLen, len(p))
			if err := frame(p[:n]); err != nil {
				return err
			}
			p = p[n:]
		}
	}
	if err := stageOut(); err != nil {
		return err
	}
	return w.flushVec()
}

// flushVec writes the batch of frames built so far with one writev.
func (w *frameWriter) flushVec() error {
	v := &w.vec
	if len(v.iov) == 0 {
		return nil
	}
	if err := w.arm(); err != nil {
		return err
	}
	err := w.writeIov(v.iov)
	clear(v.iov) // do not pin the caller's pieces
	v.iov, v.frames = v.iov[:0], v.frames[:0]
	return err
}

// sendBuffers is send for a payload given in pieces.
func (c *conn) sendBuffers(kind uint8, seq uint64, bufs [][]byte) error {
	total := payloadLen(bufs)
	if err := c.checkSend(kind, total); err != nil {
		return err
	}
	return c.write(func(fw *frameWriter) error { return fw.writeVec(kind, seq, bufs, total) })
}

// SendBuffers sends the slave of the given rank one message of kind and
// seq whose payload is the concatenation of bufs, without copying the
// large pieces: the receiver gets one Message, as from Send. It returns
// once the message is written to the socket; bufs may be reused then.
// Errors are Send's.
func (m *Master) SendBuffers(rank int, kind uint8, seq uint64, bufs [][]byte) error {
	c, err := m.peer(rank)
	if err != nil {
		return err
	}
	return c.sendBuffers(kind, seq, bufs)
}

// SendBuffers sends the master one message of kind and seq whose payload
// is the concatenation of bufs, as Master.SendBuffers does.
func (s *Slave) SendBuffers(kind uint8, seq uint64, bufs [][]byte) error {
	return s.c.sendBuffers(kind, seq, bufs)
}
