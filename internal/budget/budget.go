// Package budget keeps the shared retry budget's sends in one small state file per user and
// machine, so that every parley of the user counts against one budget whatever its
// PARLEY_HOME. The file is the user's alone (a 0700 directory, a 0600 file opened without
// following links and checked to be theirs) and locked while it is read and updated.
package budget

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"parley/internal/chat"
)

// FileName is the state file inside the directory Open is given.
const FileName = "retry-budget.json"

// File is the budget's state file. Its methods take the same arguments as the history
// database's per-history budget, which it stands in for.
type File struct {
	path string
}

// Dir is where the budget's file is kept for the environment getenv reads: the user's runtime
// directory, else their cache directory; "" when neither can be found.
func Dir(getenv func(string) string) string {
	for _, d := range []struct{ env, sub string }{{"XDG_RUNTIME_DIR", ""}, {"XDG_CACHE_HOME", ""}, {"HOME", ".cache"}} {
		if v := getenv(d.env); v != "" && filepath.IsAbs(v) {
			return filepath.Join(v, d.sub, "parley")
		}
	}
	return ""
}

// Open returns the budget's file in dir, creating the directory (0700) and the file (0600)
// when they are missing, and checking that both are the user's and no one else's.
func Open(dir string) (*File, error) {
	if dir == "" {
		return nil, errors.New("no runtime or cache directory (XDG_RUNTIME_DIR, XDG_CACHE_HOME, HOME)")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil, err
	}
	if err := owned(dir, fi, true); err != nil {
		return nil, err
	}
	b := &File{path: filepath.Join(dir, FileName)}
	f, err := b.open()
	if err != nil {
		return nil, err
	}
	return b, f.Close()
}

// owned says why fi, the directory or file at path, is not the user's alone, or nil.
func owned(path string, fi os.FileInfo, dir bool) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case dir && !fi.IsDir(), !dir && !fi.Mode().IsRegular():
		return fmt.Errorf("%s is not a plain %s", path, map[bool]string{true: "directory", false: "file"}[dir])
	case !ok || int(st.Uid) != os.Getuid():
		return fmt.Errorf("%s belongs to another user", path)
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("%s is open to other users (mode %o): chmod go-rwx it", path, fi.Mode().Perm())
	}
	return nil
}

// open opens the file for reading and writing, never through a link, and checks it.
func (b *File) open() (*os.File, error) {
	f, err := os.OpenFile(b.path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = owned(b.path, fi, false)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// state is the file's content: per route, the sends within the budget's window.
type state struct {
	Sends map[string][]send `json:"sends"`
}

type send struct {
	At    int64 `json:"at"` // Unix nanoseconds
	Retry bool  `json:"retry,omitempty"`
}

// update reads the state under an exclusive lock, lets change alter it, and writes it back
// when change reports it did, the lock held throughout.
func (b *File) update(change func(s *state) bool) error {
	f, err := b.open()
	if err != nil {
		return err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	raw, err := io.ReadAll(f)
	if err != nil {
		return err
	}
	var s state
	if len(raw) > 0 && json.Unmarshal(raw, &s) != nil {
		s = state{} // a torn or foreign file: the sends it held are a minute's worth at most
	}
	if s.Sends == nil {
		s.Sends = map[string][]send{}
	}
	if !change(&s) {
		return nil
	}
	out, err := json.Marshal(s)
	if err != nil {
		return err
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err = f.WriteAt(out, 0)
	return err
}

// forget drops the sends older than since, and the routes left with none.
func (s *state) forget(since time.Time) {
	for route, sends := range s.Sends {
		kept := sends[:0]
		for _, x := range sends {
			if x.At >= since.UnixNano() {
				kept = append(kept, x)
			}
		}
		if len(kept) == 0 {
			delete(s.Sends, route)
		} else {
			s.Sends[route] = kept
		}
	}
}

// RecordSend counts a request sent on route at at, and forgets the sends older than keep.
func (b *File) RecordSend(route string, at time.Time, retry bool, keep time.Duration) error {
	return b.update(func(s *state) bool {
		s.forget(at.Add(-keep))
		s.Sends[route] = append(s.Sends[route], send{At: at.UnixNano(), Retry: retry})
		return true
	})
}

// TakeRetry asks allow, with the sends on route since now-window, whether a retry may be sent
// at now, and counts it when it may, under one lock: parleys sending at once never share the
// budget's last retry. When it may not, at is when allow says it will.
func (b *File) TakeRetry(route string, now time.Time, window time.Duration,
	allow func(sends []chat.Send, now time.Time) (bool, time.Time)) (ok bool, at time.Time, err error) {
	err = b.update(func(s *state) bool {
		var sends []chat.Send
		for _, x := range s.Sends[route] {
			if t := time.Unix(0, x.At); t.After(now.Add(-window)) {
				sends = append(sends, chat.Send{At: t, Retry: x.Retry})
			}
		}
		if ok, at = allow(sends, now); !ok {
			return false
		}
		s.forget(now.Add(-window))
		s.Sends[route] = append(s.Sends[route], send{At: now.UnixNano(), Retry: true})
		return true
	})
	if err != nil {
		return false, time.Time{}, err
	}
	if ok {
		at = now
	}
	return ok, at, nil
}
