package nodeenv

// The join file: how a node finds a running job to join (cape join DIR,
// or Join=DIR in a program's environment under a scheduler).

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/cape-go/cape/internal/arena"
)

// Join names the variable that makes a program join the running job whose
// checkpoint directory it names, instead of starting as a node of a new
// job: it reads JoinFile there (cape join sets it).
const Join = "CAPE_JOIN"

// JoinFile is the join file's name in the checkpoint directory. The master
// of a job with a checkpoint log writes it (mode 0600) once it listens and
// removes it when the job ends.
const JoinFile = "cape.join"

// joinVersion is the join file's format version.
const joinVersion = 1

// maxJoinFile bounds the join file's size.
const maxJoinFile = 1 << 20

// JoinInfo is what the join file holds: the job's address and secret, the
// program and its arguments, and the settings every node of the job uses.
type JoinInfo struct {
	Version int    `json:"version"`
	Master  string `json:"master"` // host:port the joining node dials
	Job     string `json:"job"`    // hex
	Token   string `json:"token"`  // hex: the job's secret
	Size    int    `json:"size"`   // the job's size at its start
	MaxJoin int    `json:"max_join"`
	// Program is the job's executable, SHA256 its hash (hex), Args its
	// arguments: a joining node must run the same.
	Program string   `json:"program"`
	SHA256  string   `json:"sha256"`
	Args    []string `json:"args"`
	// Settings are the job's settings, as the variables a launcher sets
	// (Monitor, Compress, Timeout, MaxLost, Stats, ...).
	Settings map[string]string `json:"settings"`
}

// settingVars are the variables a join file carries over to a joining node.
var settingVars = []string{Monitor, Compress, Stats, Timeout, Broadcast, MaxLost, Transfer, arena.SizeEnv}

// JoinAddr is the address a joining node dials for a master listening at
// a: a itself, with the host's name (hostname's, "localhost" when that
// fails) when it listens on every interface.
func JoinAddr(a net.Addr, hostname func() (string, error)) string {
	ta, ok := a.(*net.TCPAddr)
	if !ok || !ta.IP.IsUnspecified() {
		return a.String()
	}
	host, err := hostname()
	if err != nil {
		host = "localhost"
	}
	return net.JoinHostPort(host, strconv.Itoa(ta.Port))
}

// NewJoinInfo describes the job of c, whose master listens at addr and
// admits up to maxJoin joining nodes, for its join file: the program is
// this process's executable, with its arguments.
func NewJoinInfo(c *Config, addr string, maxJoin int) (*JoinInfo, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("join file: the program's path: %w", err)
	}
	sum, err := ProgramHash(exe)
	if err != nil {
		return nil, fmt.Errorf("join file: %w", err)
	}
	info := &JoinInfo{Version: joinVersion, Master: addr, Job: fmt.Sprintf("%x", c.Job), Token: hex.EncodeToString(c.Token),
		Size: c.Size, MaxJoin: maxJoin, Program: exe, SHA256: sum, Args: os.Args[1:], Settings: map[string]string{}}
	for _, kv := range Environ(*c) {
		k, v, _ := strings.Cut(kv, "=")
		if slices.Contains(settingVars, k) {
			info.Settings[k] = v
		}
	}
	if v := os.Getenv(arena.SizeEnv); v != "" {
		info.Settings[arena.SizeEnv] = v // the log's arena must be the joining node's
	}
	return info, nil
}

// WriteJoin writes info to dir's join file, mode 0600, replacing any
// (atomically: a joining node never reads half a file).
func WriteJoin(dir string, info *JoinInfo) error {
	b, err := json.MarshalIndent(info, "", "\t")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, JoinFile+".*")
	if err != nil {
		return fmt.Errorf("write join file: %w", err)
	}
	_, err = tmp.Write(append(b, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o600)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, JoinFile))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write join file: %w", err)
	}
	return nil
}

// RemoveJoin removes dir's join file, if any: the job has ended.
func RemoveJoin(dir string) {
	if dir != "" {
		_ = os.Remove(filepath.Join(dir, JoinFile))
	}
}

// ReadJoin reads dir's join file. It refuses a file that is not a regular
// file of this user's with no access for group or others (it holds the
// job's token), and one that does not describe a job.
func ReadJoin(dir string) (*JoinInfo, error) {
	name := filepath.Join(dir, JoinFile)
	f, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s does not exist: no job with a checkpoint log in %s is running (its master writes the file once it listens and removes it when the job ends)", name, dir)
	}
	if err != nil {
		return nil, fmt.Errorf("read join file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read join file: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	if err := ownedPrivate(name, fi); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, maxJoinFile+1))
	if err != nil {
		return nil, fmt.Errorf("read join file: %w", err)
	}
	if len(b) > maxJoinFile {
		return nil, fmt.Errorf("%s is over %d bytes: not a join file", name, maxJoinFile)
	}
	var info JoinInfo
	if err := json.Unmarshal(b, &info); err != nil {
		return nil, fmt.Errorf("%s: not a join file: %w", name, err)
	}
	if err := info.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &info, nil
}

// check validates a join file's fields.
func (info *JoinInfo) check() error {
	switch {
	case info.Version != joinVersion:
		return fmt.Errorf("join file version %d, want %d", info.Version, joinVersion)
	case info.Master == "" || info.Program == "" || len(info.SHA256) != 64:
		return errors.New("the job's address, program or program hash is missing")
	case info.Size < 2 || info.MaxJoin < 1 || info.Size > 1<<20 || info.MaxJoin > 1<<20:
		return fmt.Errorf("a job of %d nodes admitting %d joining nodes", info.Size, info.MaxJoin)
	}
	for k := range info.Settings {
		if !slices.Contains(settingVars, k) {
			return fmt.Errorf("unknown setting %s", k)
		}
	}
	return nil
}

// ownedPrivate refuses a file group or others may access (the join file
// and the token file hold the job's token), and, where files have owners,
// one another user owns.
func ownedPrivate(name string, fi fs.FileInfo) error {
	if perm := fi.Mode().Perm(); perm&0o077 != 0 && runtime.GOOS != "windows" {
		return fmt.Errorf("%s has mode %04o: group and others must have no access (chmod 600 %s)", name, perm, name)
	}
	if uid, ok := fileOwner(fi); ok && uid != os.Getuid() {
		return fmt.Errorf("%s is owned by uid %d, not by you (uid %d)", name, uid, os.Getuid())
	}
	return nil
}

// ProgramHash returns the SHA-256 of the file at path, in hex.
func ProgramHash(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("hash the program: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash the program %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// CheckProgram refuses a program that is not the job's: its SHA-256 must
// be the one the join file records.
func (info *JoinInfo) CheckProgram(path string) error {
	sum, err := ProgramHash(path)
	if err != nil {
		return err
	}
	if sum != info.SHA256 {
		return fmt.Errorf("the program %s (sha256 %.16s…) is not the job's program %s (sha256 %.16s…): a joining node must run the same binary",
			path, sum, info.Program, info.SHA256)
	}
	return nil
}

// readJoin is Read for a process with Join set: the job's configuration
// from the join file in dir. The program must be the job's, with its
// arguments. Rank is left to the node, which takes the first free rank
// from Size on.
func readJoin(dir string) (*Config, error) {
	info, err := ReadJoin(dir)
	if err != nil {
		return nil, err
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("join: the program's path: %w", err)
	}
	if err := info.CheckProgram(exe); err != nil {
		return nil, fmt.Errorf("join: %w", err)
	}
	if args := os.Args[1:]; !slices.Equal(args, info.Args) {
		return nil, fmt.Errorf("join: the program's arguments %q are not the job's %q", args, info.Args)
	}
	c := &Config{Rank: info.Size, Size: info.Size, Master: info.Master, ListenFD: -1, Checkpoint: dir, JoinDir: dir, MaxJoin: info.MaxJoin}
	get := func(k string) string { return info.Settings[k] }
	if err := c.readSettings(get); err != nil {
		return nil, fmt.Errorf("join file: %w", err)
	}
	if v := get(arena.SizeEnv); v != "" {
		// The arena, made after this, must be the job's.
		os.Setenv(arena.SizeEnv, v)
	}
	c.Checkpoint, c.Restart, c.CheckpointMax = dir, false, 0
	if _, err := fmt.Sscanf(info.Job, "%x", &c.Job); err != nil {
		return nil, fmt.Errorf("join file: job id %q: want hexadecimal", info.Job)
	}
	if c.Token, err = hex.DecodeString(info.Token); err != nil || len(c.Token) < 16 {
		return nil, fmt.Errorf("join file: token: want at least 32 hexadecimal digits")
	}
	return c, nil
}
