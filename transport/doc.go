// Package transport owns the TCP connections of a CAPE job: a star of
// authenticated, framed connections between the master (rank 0) and each
// slave, with gather, broadcast and point-to-point messages, deadlines and
// heartbeats. It knows nothing of what a message means.
//
// # In a nutshell
//
// It works as follows:
//
//  1. The master calls [NewMaster] on a listener; every slave calls [Dial]
//     with its rank, retrying while the master is not listening yet. Each
//     connection starts with a handshake in which both sides prove, over
//     fresh random nonces, that they hold the job's secret token
//     ([Config].Token), and the master checks the slave's job id, rank and
//     job size. NewMaster returns once Size-1 distinct slaves have joined.
//  2. Both sides derive two session keys from the token and the nonces, one
//     per direction. Every frame after the handshake carries AES-GCM tags
//     (GMAC: the data is authenticated, not encrypted) whose nonce is a
//     per-direction frame counter, so a modified, replayed, reordered or
//     injected frame fails its tag and the connection is dropped.
//  3. Each connection has a reader goroutine that verifies frames and queues
//     the messages (the queue is unbounded: the runtime's protocol keeps
//     few messages in flight), and a heartbeat goroutine. A payload reaches
//     the caller only after all of its tags verified. While a caller waits
//     in Recv, and for 20ms after one left it, the caller reads the socket
//     itself instead (the same verification and handling), so that in a
//     loop of small regions a message wakes the goroutine that needs it
//     rather than the reader goroutine, which would then wake it. On Linux
//     reads and writes of at most 64 KiB use raw system calls (the wait for
//     the socket stays the runtime poller's), which leave the runtime's
//     monitor thread asleep.
//  4. A connection that sent nothing for HeartbeatInterval sends a
//     heartbeat; one that received nothing for PeerTimeout fails with
//     [ErrPeerTimeout]. Every write has a deadline of IOTimeout. Deadlines
//     are set again only once min(timeout/64, 10ms) has passed (setting
//     one is a runtime timer's change, which wakes an idle thread), and that
//     far ahead: a silent peer or a blocked write fails after its timeout
//     and within that slack after it. EOF or a
//     reset fails the connection at once ([ErrConnLost]); a peer's Close is
//     announced by a goodbye frame ([ErrPeerClosed]). Failures are
//     [*NodeError] values naming the remote rank and address.
//
// Messages are delivered in order per connection; queued messages are
// returned before the failure that followed them. There is no ordering
// between different slaves.
//
// # Handshake
//
// Handshake messages are plaintext: magic "CAPE", version 1, a type byte, a
// big-endian u16 body length (fixed per type, checked before the body is
// read), and the body:
//
//	type  direction       body
//	1     slave → master  hello: rank u32, size u32, job id u64, slave nonce [32]
//	2     master → slave  challenge: master nonce [32]
//	3     slave → master  proof: HMAC-SHA256(token, "cape/transport v1 slave proof" ‖ T) [32]
//	4     master → slave  result: status u8, HMAC-SHA256(token, "cape/transport v1 master proof" ‖ T) [32]
//
// T is the transcript: version u8 ‖ rank u32 ‖ size u32 ‖ job id u64 ‖ slave
// nonce ‖ master nonce. The master answers a hello with a wrong job id, a
// rank out of range or another size with a result (status non-zero, MAC
// zero) instead of a challenge. It checks the slave's proof, then claims the
// rank (so an unauthenticated peer cannot take one: a duplicate rank is
// rejected after authentication), then sends the result with its own proof,
// which the slave checks before it trusts the connection. The labels make
// each side's proof useless as the other's. Statuses: 0 accepted, 1 wrong
// job id, 2 rank out of range, 3 size mismatch, 4 the slave's proof failed,
// 5 duplicate rank, 6 unsupported version.
//
// Accepting (NewMaster, and each slave's relay listener) survives a flood of
// connections that never authenticate: every handshake runs in its own
// goroutine with its own deadline (min(5s, PeerTimeout), at least 1s); at
// most 64+Size are in progress at once, and a new connection beyond that
// closes the oldest one that has sent nothing (else the oldest). An accept
// that fails for want of descriptors (EMFILE, ENFILE) closes the oldest
// handshake and retries; other transient accept errors (ECONNABORTED,
// ENOBUFS, ENOMEM) back off up to 500ms. A slave whose handshake the master
// cut short (EOF or reset before the result) dials again until its context
// ends. A join error lists at most 16 failed handshakes and counts the rest.
//
// One port for several services (Router, route.go): a master whose services
// each authenticate with this handshake under a job id of their own shares
// one listener among them. The Router accepts with the same limits, reads
// the first 24 bytes of the hello with MSG_PEEK (consuming nothing, so the
// service gets the accepted *net.TCPConn and reads the hello itself) and
// hands the connection to the service listening for its job id; anything
// else that sends bytes goes to the first service, whose handshake refuses
// it; a connection silent for the handshake deadline is closed and reported
// to Config.Notice. The job id picks a service, nothing more: the service's
// handshake checks it, with the MAC, as on a listener of its own.
//
// Session keys: HKDF-SHA256 with the token as secret, slave nonce ‖ master
// nonce as salt, and "cape/transport v1 session keys" ‖ T as info; 64
// bytes: the AES-256 key of frames sent by the slave, then of frames sent
// by the master.
//
// # Frames
//
// A message travels as one or more frames, one per chunk of at most 1 MiB of
// its payload (256 KiB are sent), so sender and receiver overlap and the
// payload is never copied to be framed. Integers are big-endian:
//
//	offset size
//	0      1    kind: 1 heartbeat, 2 goodbye, ≥ 16 a caller's message
//	1      1    flags: bit 0 set on the last chunk of a message
//	2      2    reserved, zero
//	4      4    chunk length (≤ 1 MiB)
//	8      8    the message's Seq
//	16     8    the message's payload length (≤ MaxFrame), the same in every chunk
//	24     16   header tag: GMAC of bytes 0..23
//	40     n    chunk (absent if the length is zero)
//	40+n   16   chunk tag: GMAC of the chunk (absent if the length is zero)
//
// The GMAC is AES-256-GCM's Seal of an empty plaintext with the data as
// additional data; its 12-byte nonce is four zero bytes and a u64 counter
// of this direction, incremented for each tag (header, then chunk). The
// receiver verifies the header tag before it parses the header, and checks
// the length against the kind's limit before it allocates anything: none
// for heartbeats and goodbyes, 10 bytes for an announcement, 16 KiB for the
// relay set-up messages, Config.KindLimits for a caller's kind that has
// one, else MaxFrame. The payload is then allocated as its chunks arrive:
// 4 MiB at first, then growing fourfold, so that a header declaring a large
// message costs the receiver at most 4 MiB or four times the bytes sent.
//
// [Master.SendBuffers] and [Slave.SendBuffers] send a payload given in
// pieces (say a header, and data that lives elsewhere) as one message, in
// the same frames: a piece of 4 KiB or more is framed in place, smaller
// ones are gathered into one chunk, and up to 32 frames go out in one
// writev. The receiver sees one message, as from Send.
//
// # Scalable broadcast
//
// The star costs the master (Size-1) × n bytes per broadcast of n bytes.
// With Size ≥ 3 (and Config.Broadcast other than "star") each slave, right
// after joining, listens on an ephemeral port of the address it reached the
// master from and sends the port (kind 3). The master then tells each slave
// which slaves to dial (kind 4): its children in a pipelined chain
// (r → r+1) and in a binary tree (r → 2r+1, 2r+2). A link's handshake is the
// join handshake with the parent in the slave's role and the child in the
// master's, accepting only its expected parents. Each slave reports its
// links up (kind 5, or the reason they are not); NewMaster returns when all
// did, and keeps the star if any failed (Master.RelayErr, and
// Config.Notice, name the slaves and links). A slave dials its children
// concurrently and accepts its parents as the master accepts slaves (see
// Handshake), so a silent connection to a relay listener delays nothing.
// The set-up is bounded: each slave gives up on its links after
// min(10s, HandshakeTimeout, PeerTimeout) (at least 1s) and the master
// waits twice that for the reports, but stops at once when a slave's
// connection fails, so that a node hanging during the set-up is found
// within PeerTimeout, as later.
//
// A relayed broadcast #i sends a 10-byte announcement (kind 6: the caller's
// kind and Seq, and the scheme, 7 or 8) to every slave on its own
// connection, so that the message keeps its place among the master's other
// messages, and the payload (kind 7 chain, kind 8 tree, Seq i) to the
// master's children only. A slave forwards each verified frame to its
// children as it arrives, re-tagged with each link's keys and holding each
// child's write lock from the first frame to the last; Slave.Recv, reaching
// the announcement, returns the payload once it is complete. If the slave's
// parent in that scheme (the master for ranks 1 and 2 of the tree, 1 of the
// chain) ends without having sent it, Recv fails naming the parent; the end
// of any other parent, or of the master, does not matter, since a goodbye
// follows every frame its sender had forwarded.
// A master that gives up on a slave (Master.Drop, Master.Exclude) uses
// the star from then on; with Config.HealRelay it also sends its last
// relayed broadcast again, over their own connections, to the slaves below
// the lost one in that scheme, which then wait for that copy instead of
// failing when their parent ends without forwarding (a slave ignores a copy
// of a broadcast it already has).
// Broadcast picks the scheme per message: the star below 64 KiB (one hop,
// written to the slaves one after the other from the caller's goroutine),
// the chain when the payload spans at least 2 chunks per hop, the tree in
// between. Kinds 3..8 are reserved for this; Gather is unchanged (the
// master must receive every slave's bytes once whatever the topology).
//
// # Lifecycle
//
// NewMaster or Dial returns a connected [Master] or [Slave]; Send, Recv,
// Broadcast and Gather may then be called until Close. A failed connection
// stays failed: every later call about that node returns its *NodeError
// (there is no reconnection). NewMaster does not close its listener.
//
// Close unblocks every blocked call at once (they return [ErrClosed]) and
// ends each connection gracefully, so that the peer loses nothing already
// sent. Closing a TCP socket with unread data in it, or receiving data once
// it is closed (a heartbeat, say), makes the kernel reset the connection,
// and the reset discards whatever the kernel had not yet delivered: the
// tail of a large message to a slow receiver. So Close waits for the
// relayed message being forwarded on a connection (or a heartbeat) to be
// written, but cuts short a caller's Send in progress; it sends the
// goodbye, shuts the write side (FIN), and keeps reading and discarding
// until the peer ends its side, then closes the socket. A peer ends its
// side as soon as its reader sees the goodbye, so this takes a round trip;
// it is bounded by min(PeerTimeout, 2s), after which the socket is closed
// anyway. The wait for a relayed message being forwarded lasts as long as
// the forward progresses: it ends once nothing was written for that long. A slave closes its links to its relay children first (each once
// the message being forwarded is complete, while the parents keep
// sending), then its parents' links and the connection to the master.
// [Master.WaitClosed] lets the master wait until every slave has closed
// before it closes: a slave still receiving or forwarding the last
// broadcast then finishes it.
//
// # Threat model
//
// Trusted: the user who runs the job, the launch host (where cape run, or
// rank 0 under a scheduler, runs) and the processes of the job, and anyone
// holding the job's token, which is as good as the user's account for this
// job: a token holder can join as any free rank, send any message the
// runtime accepts and so run code in the job as the user. The token never
// appears on a command line; it reaches nodes on a pipe, ssh's stdin, a
// file of mode 0600 or a variable that internal/nodeenv removes once read.
//
// An attacker on the network, without the token, can connect to the
// master's port and to every relay listener, and can read the traffic (the
// payloads are authenticated, not encrypted: a job's data is not secret
// from the network). They cannot join, take a rank, inject, modify, replay
// or reorder a frame (every frame carries a GMAC under per-connection
// keys), nor make a node allocate more than a few KiB per connection
// before authentication, nor stop a join or the relay set-up by flooding
// connections (see Handshake: bounded, each with a deadline, the oldest
// silent one dropped first). They can slow a join by keeping the accept
// queue full, and can cut a connection (a reset): the job then fails
// naming the node, it never continues with wrong data. With the token they
// are trusted (above); an authenticated peer still cannot make a receiver
// allocate more than the kind's limit or the bytes it sent.
//
// Another user on a slave host sees the process list and can connect to
// that host's relay listener: the same as a network attacker. They cannot
// read a node's environment (/proc/PID/environ is the user's only) nor a
// token file of mode 0600. What runs on the slave host is the launcher's
// business (internal/launch checks the copied program).
//
// Another user on the launch host can do the same, and bind a port first:
// under a scheduler the master's port is derived from the job id, so they
// can make the job fail (the error names the port and CAPE_PORT), not join
// it. With every rank on one host the master listens on loopback only, out
// of other hosts' reach; the host's other users can still connect, with a
// network attacker's powers. A user who can read the token file, or is
// root, is trusted by definition.
//
// # Locks
//
// Each connection has three mutexes: wmu serializes whole messages on the
// socket (the heartbeat goroutine only TryLocks it), rmu is held by
// whoever reads the socket (the reader goroutine, or a receiver reading it
// itself, which only TryLocks it), and mu protects the receive queue and
// the failure state. Lock order: wmu or rmu before mu; mu is never held
// across I/O. Master.Gather calls are serialized by their own mutex, taken
// before any connection's.
package transport
