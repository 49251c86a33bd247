package transport

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Handshake messages; see doc.go. All integers are big-endian.
const (
	hsMagic     = "CAPE"
	hsVersion   = 1
	hsPrefixLen = 8 // magic, version, type, body length u16
	nonceLen    = 32
	macLen      = 32

	hsHello     = 1 // slave → master: rank, size, job id, slave nonce
	hsChallenge = 2 // master → slave: master nonce
	hsProof     = 3 // slave → master: slave MAC
	hsResult    = 4 // master → slave: status, master MAC (status ok only)

	helloLen     = 4 + 4 + 8 + nonceLen
	challengeLen = nonceLen
	proofLen     = macLen
	resultLen    = 1 + macLen
	maxBodyLen   = helloLen
)

// Result statuses.
const (
	statusOK = iota
	statusBadJob
	statusBadRank
	statusBadSize
	statusAuth
	statusDuplicate
	statusVersion
	numStatus
)

var statusText = [numStatus]string{
	statusOK:        "accepted",
	statusBadJob:    "wrong job id",
	statusBadRank:   "rank out of range",
	statusBadSize:   "job size mismatch",
	statusAuth:      "the slave did not prove knowledge of the job token",
	statusDuplicate: "duplicate rank",
	statusVersion:   "unsupported protocol version",
}

// Labels of the two proofs and of the key derivation: each MAC is bound to
// its role, so one side's proof is never valid as the other's.
const (
	labelSlave  = "cape/transport v1 slave proof"
	labelMaster = "cape/transport v1 master proof"
	labelKeys   = "cape/transport v1 session keys"
)

var bodyLen = [...]int{hsHello: helloLen, hsChallenge: challengeLen, hsProof: proofLen, hsResult: resultLen}

// hsMsg is one decoded handshake message; which fields are set depends on
// typ.
type hsMsg struct {
	typ    uint8
	rank   uint32
	size   uint32
	jobID  uint64
	nonce  [nonceLen]byte // hello, challenge
	mac    [macLen]byte   // proof, result
	status uint8          // result
}

// appendHandshake appends the encoding of m.
func appendHandshake(dst []byte, m *hsMsg) []byte {
	dst = append(dst, hsMagic...)
	dst = append(dst, hsVersion, m.typ)
	dst = binary.BigEndian.AppendUint16(dst, uint16(bodyLen[m.typ]))
	switch m.typ {
	case hsHello:
		dst = binary.BigEndian.AppendUint32(dst, m.rank)
		dst = binary.BigEndian.AppendUint32(dst, m.size)
		dst = binary.BigEndian.AppendUint64(dst, m.jobID)
		dst = append(dst, m.nonce[:]...)
	case hsChallenge:
		dst = append(dst, m.nonce[:]...)
	case hsProof:
		dst = append(dst, m.mac[:]...)
	case hsResult:
		dst = append(dst, m.status)
		dst = append(dst, m.mac[:]...)
	}
	return dst
}

// parsePrefix checks a message prefix and returns the type and body length.
func parsePrefix(b []byte) (typ uint8, n int, err error) {
	if len(b) < hsPrefixLen {
		return 0, 0, fmt.Errorf("%w: handshake message of %d bytes", ErrCorruptFrame, len(b))
	}
	if string(b[:4]) != hsMagic {
		return 0, 0, fmt.Errorf("%w: not a cape handshake (magic %q)", ErrCorruptFrame, b[:4])
	}
	if b[4] != hsVersion {
		return 0, 0, fmt.Errorf("%w: protocol version %d, want %d", ErrRejected, b[4], hsVersion)
	}
	typ = b[5]
	if typ < hsHello || typ > hsResult {
		return 0, 0, fmt.Errorf("%w: handshake message type %d", ErrCorruptFrame, typ)
	}
	n = int(binary.BigEndian.Uint16(b[6:]))
	if n != bodyLen[typ] {
		return 0, 0, fmt.Errorf("%w: handshake message type %d of %d bytes, want %d", ErrCorruptFrame, typ, n, bodyLen[typ])
	}
	return typ, n, nil
}

// decodeHandshake decodes one complete message. It never allocates.
func decodeHandshake(b []byte) (hsMsg, error) {
	typ, n, err := parsePrefix(b)
	if err != nil {
		return hsMsg{}, err
	}
	if len(b) != hsPrefixLen+n {
		return hsMsg{}, fmt.Errorf("%w: handshake message of %d bytes, want %d", ErrCorruptFrame, len(b), hsPrefixLen+n)
	}
	body := b[hsPrefixLen:]
	m := hsMsg{typ: typ}
	switch typ {
	case hsHello:
		m.rank = binary.BigEndian.Uint32(body)
		m.size = binary.BigEndian.Uint32(body[4:])
		m.jobID = binary.BigEndian.Uint64(body[8:])
		copy(m.nonce[:], body[16:])
	case hsChallenge:
		copy(m.nonce[:], body)
	case hsProof:
		copy(m.mac[:], body)
	case hsResult:
		m.status = body[0]
		if m.status >= numStatus {
			return hsMsg{}, fmt.Errorf("%w: handshake status %d", ErrCorruptFrame, m.status)
		}
		copy(m.mac[:], body[1:])
	}
	return m, nil
}

// readHandshake reads one message into a fixed buffer: the declared length
// is checked against the type's before the body is read.
func readHandshake(r io.Reader) (hsMsg, error) {
	var buf [hsPrefixLen + maxBodyLen]byte
	if _, err := io.ReadFull(r, buf[:hsPrefixLen]); err != nil {
		return hsMsg{}, err
	}
	_, n, err := parsePrefix(buf[:hsPrefixLen])
	if err != nil {
		return hsMsg{}, err
	}
	if _, err := io.ReadFull(r, buf[hsPrefixLen:hsPrefixLen+n]); err != nil {
		return hsMsg{}, unexpected(err)
	}
	return decodeHandshake(buf[:hsPrefixLen+n])
}

func writeHandshake(w io.Writer, m *hsMsg) error {
	var buf [hsPrefixLen + maxBodyLen]byte
	_, err := w.Write(appendHandshake(buf[:0], m))
	return err
}

// transcript is what both proofs and the session keys are bound to.
type transcript struct {
	hello  hsMsg // rank, size, job id, slave nonce
	nonceM [nonceLen]byte
}

func (t *transcript) bytes(label string) []byte {
	b := make([]byte, 0, len(label)+1+helloLen+nonceLen)
	b = append(b, label...)
	b = append(b, hsVersion)
	b = binary.BigEndian.AppendUint32(b, t.hello.rank)
	b = binary.BigEndian.AppendUint32(b, t.hello.size)
	b = binary.BigEndian.AppendUint64(b, t.hello.jobID)
	b = append(b, t.hello.nonce[:]...)
	return append(b, t.nonceM[:]...)
}

// proof returns HMAC-SHA256(token, label ‖ transcript).
func (t *transcript) proof(token []byte, label string) [macLen]byte {
	h := hmac.New(sha256.New, token)
	h.Write(t.bytes(label))
	var mac [macLen]byte
	h.Sum(mac[:0])
	return mac
}

// sessionKeys are the two directions' AES-256-GCM keys of one connection.
type sessionKeys struct {
	toMaster [32]byte // frames sent by the slave
	toSlave  [32]byte // frames sent by the master
}

// deriveKeys is HKDF-SHA256 with the token as secret, both nonces as salt
// and the transcript as info.
func (t *transcript) deriveKeys(token []byte) (sessionKeys, error) {
	salt := append(t.hello.nonce[:len(t.hello.nonce):len(t.hello.nonce)], t.nonceM[:]...)
	k, err := hkdf.Key(sha256.New, token, salt, string(t.bytes(labelKeys)), 64)
	if err != nil {
		return sessionKeys{}, err
	}
	var keys sessionKeys
	copy(keys.toMaster[:], k[:32])
	copy(keys.toSlave[:], k[32:])
	clear(k)
	return keys, nil
}

func randomNonce() ([nonceLen]byte, error) {
	var n [nonceLen]byte
	_, err := rand.Read(n[:])
	return n, err
}

// slaveHandshake runs the slave's side on rw (whose deadline the caller set):
// hello, then the challenge, the slave's proof, and the master's result with
// its proof, which the slave checks before trusting the connection.
func slaveHandshake(rw io.ReadWriter, rank int, cfg *Config) (sessionKeys, error) {
	nonce, err := randomNonce()
	if err != nil {
		return sessionKeys{}, err
	}
	t := transcript{hello: hsMsg{typ: hsHello, rank: uint32(rank), size: uint32(cfg.Size), jobID: cfg.JobID, nonce: nonce}}
	if err := writeHandshake(rw, &t.hello); err != nil {
		return sessionKeys{}, netCause(err)
	}
	m, err := readHandshake(rw)
	if err != nil {
		return sessionKeys{}, hsReadErr(err)
	}
	if m.typ == hsResult {
		return sessionKeys{}, rejection(m.status)
	}
	if m.typ != hsChallenge {
		return sessionKeys{}, fmt.Errorf("%w: handshake message type %d, want a challenge", ErrCorruptFrame, m.typ)
	}
	t.nonceM = m.nonce
	p := hsMsg{typ: hsProof, mac: t.proof(cfg.Token, labelSlave)}
	if err := writeHandshake(rw, &p); err != nil {
		return sessionKeys{}, netCause(err)
	}
	if m, err = readHandshake(rw); err != nil {
		return sessionKeys{}, hsReadErr(err)
	}
	if m.typ != hsResult {
		return sessionKeys{}, fmt.Errorf("%w: handshake message type %d, want a result", ErrCorruptFrame, m.typ)
	}
	if m.status != statusOK {
		return sessionKeys{}, rejection(m.status)
	}
	want := t.proof(cfg.Token, labelMaster)
	if !hmac.Equal(m.mac[:], want[:]) {
		return sessionKeys{}, fmt.Errorf("%w: the master did not prove knowledge of the job token", ErrAuth)
	}
	return t.deriveKeys(cfg.Token)
}

func rejection(status uint8) error {
	if status == statusAuth {
		return fmt.Errorf("%w: the master rejected this node's proof: the job tokens differ", ErrAuth)
	}
	if status == statusDuplicate {
		return fmt.Errorf("%w by the master: %s", ErrRankTaken, statusText[status])
	}
	return fmt.Errorf("%w by the master: %s", ErrRejected, statusText[status])
}

func hsReadErr(err error) error {
	if err == io.EOF {
		// The master hangs up on a slave that fails a check it cannot
		// report (it reports those it can).
		return fmt.Errorf("%w: the master closed the connection during the handshake", ErrConnLost)
	}
	return netCause(err)
}

// claimFunc reserves a rank for an authenticated slave; it returns a release
// function, or an error (wrapping ErrRejected) if the rank is taken.
type claimFunc func(rank int, addr string) (release func(), err error)

// masterHandshake runs the master's side on rw (whose deadline the caller
// set). It returns the slave's rank (-1 if unknown) and the session keys.
// Checks that need no secret (job id, rank, size) come first; the rank is
// claimed only once the slave proved it holds the token, so an
// unauthenticated peer cannot take a rank.
func masterHandshake(rw io.ReadWriter, cfg *Config, claim claimFunc, addr string) (rank int, keys sessionKeys, err error) {
	reject := func(status uint8, err error) (int, sessionKeys, error) {
		_ = writeHandshake(rw, &hsMsg{typ: hsResult, status: status})
		return rank, sessionKeys{}, err
	}
	rank = -1
	hello, err := readHandshake(rw)
	if err != nil {
		if errors.Is(err, ErrRejected) {
			return reject(statusVersion, err)
		}
		return rank, keys, unexpected(netCause(err))
	}
	if hello.typ != hsHello {
		return rank, keys, fmt.Errorf("%w: handshake message type %d, want a hello", ErrCorruptFrame, hello.typ)
	}
	if hello.rank < 1<<31 {
		rank = int(hello.rank)
	}
	switch {
	case hello.jobID != cfg.JobID:
		return reject(statusBadJob, fmt.Errorf("%w: job id %#x, want %#x", ErrRejected, hello.jobID, cfg.JobID))
	case rank < 1 || rank >= cfg.Size+cfg.MaxJoin:
		// Ranks from Size on belong to joining nodes: claim accepts them
		// only on Master.Admit's listener.
		return reject(statusBadRank, fmt.Errorf("%w: rank %d out of range [1, %d)", ErrRejected, hello.rank, cfg.Size+cfg.MaxJoin))
	case hello.size != uint32(cfg.Size):
		return reject(statusBadSize, fmt.Errorf("%w: job size %d, want %d", ErrRejected, hello.size, cfg.Size))
	}
	nonce, err := randomNonce()
	if err != nil {
		return rank, keys, err
	}
	t := transcript{hello: hello, nonceM: nonce}
	if err := writeHandshake(rw, &hsMsg{typ: hsChallenge, nonce: nonce}); err != nil {
		return rank, keys, netCause(err)
	}
	p, err := readHandshake(rw)
	if err != nil {
		return rank, keys, unexpected(netCause(err))
	}
	if p.typ != hsProof {
		return rank, keys, fmt.Errorf("%w: handshake message type %d, want a proof", ErrCorruptFrame, p.typ)
	}
	want := t.proof(cfg.Token, labelSlave)
	if !hmac.Equal(p.mac[:], want[:]) {
		return reject(statusAuth, fmt.Errorf("%w: the slave did not prove knowledge of the job token", ErrAuth))
	}
	release, err := claim(rank, addr)
	if err != nil {
		return reject(statusDuplicate, err)
	}
	if keys, err = t.deriveKeys(cfg.Token); err != nil {
		release()
		return rank, keys, err
	}
	if err := writeHandshake(rw, &hsMsg{typ: hsResult, status: statusOK, mac: t.proof(cfg.Token, labelMaster)}); err != nil {
		release()
		return rank, keys, netCause(err)
	}
	return rank, keys, nil
}
