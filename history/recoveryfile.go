package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// A recovery file holds text the operator has not seen stored, so it is the user's alone:
// created with O_EXCL and O_NOFOLLOW, mode 0600, in a directory of the user's own, and checked
// (a regular file, the user's, private) before anything is written to it or read from it.
// Another user's file, or a symbolic link, where parley's should be is refused, never followed.

// fallbackDir is the folder of the user's own under the system's temporary directory where the
// recovery file goes when the disk beside the database has no room.
func fallbackDir() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("parley-%d", os.Geteuid()))
}

// ownDir makes sure dir is a directory of the user's own that no one else can write, creating
// it 0700 when it is missing.
func ownDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	info, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, _ := info.Sys().(*syscall.Stat_t)
	switch {
	case info.Mode()&os.ModeSymlink != 0 || !info.IsDir():
		return fmt.Errorf("%s is not a directory of parley's: remove it, or set TMPDIR to a directory of your own", dir)
	case st != nil && int(st.Uid) != os.Geteuid():
		return fmt.Errorf("%s belongs to uid %d, not you: parley keeps nothing there; remove it, or set TMPDIR to a directory of your own",
			dir, st.Uid)
	case info.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("%s can be written by others (mode %o): chmod 700 it, or set TMPDIR to a directory of your own",
			dir, info.Mode().Perm())
	}
	return nil
}

// openOwn opens the recovery file at path with flag (O_RDONLY, or O_WRONLY|O_APPEND), never
// through a symbolic link, creating it 0600 and exclusively when create is set and it is
// missing, and refuses a file that is not the user's own.
func openOwn(path string, flag int, create bool) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW, 0)
	if create && errors.Is(err, os.ErrNotExist) {
		f, err = os.OpenFile(path, flag|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
		if errors.Is(err, os.ErrExist) { // another parley made it meanwhile
			f, err = os.OpenFile(path, flag|syscall.O_NOFOLLOW, 0)
		}
	}
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s is a symbolic link, not parley's recovery file: parley will not follow it; remove it", path)
	}
	if err != nil {
		return nil, err
	}
	if err := checkOwn(f, path); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// checkOwn refuses an open recovery file that is not a regular file of the user's, private
// to them.
func checkOwn(f *os.File, path string) error {
	info, err := f.Stat()
	if err != nil {
		return err
	}
	st, _ := info.Sys().(*syscall.Stat_t)
	switch {
	case !info.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file, so not parley's recovery file: remove it", path)
	case st != nil && int(st.Uid) != os.Geteuid():
		return fmt.Errorf("%s belongs to uid %d, not you: parley will not read or write it; remove it", path, st.Uid)
	case info.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("%s can be read or written by others (mode %o): parley will not use it; chmod 600 it", path,
			info.Mode().Perm())
	}
	return nil
}

// Each line of a recovery file is a checksum (CRC-32C of the rest, 8 hex digits), a space and
// a record in JSON, whose seq numbers the records of its handle from 1: a line that does not
// match its checksum is damaged, a missing number is a line lost, a number seen twice a line
// written twice.

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// encodeLine is rec as a line of a recovery file.
func encodeLine(rec recoveryRecord) ([]byte, error) {
	js, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	line := fmt.Appendf(nil, "%08x ", crc32.Checksum(js, castagnoli))
	return append(append(line, js...), '\n'), nil
}

// readLine is a line of a recovery file as read back.
type readLine struct {
	rec recoveryRecord
	raw []byte // the line as it was, its newline included
	// cut is set on a last line the file ended in the middle of: rec holds the text it had.
	cut bool
}

// readRecoveryFile reads the lines of the recovery file at path, and counts those that could
// not be read at all. A missing file has none.
func readRecoveryFile(path string) (lines []readLine, damaged int, err error) {
	f, err := openOwn(path, os.O_RDONLY, false)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return nil, 0, err
	}
	for len(data) > 0 {
		raw, rest, complete := bytes.Cut(data, []byte("\n"))
		data = rest
		if complete {
			raw = raw[:len(raw)+1]
		}
		rec, ok := parseLine(raw, complete)
		if !ok {
			damaged++
			continue
		}
		lines = append(lines, readLine{rec: rec, raw: raw, cut: !complete})
	}
	return lines, damaged, nil
}

// parseLine reads a line of a recovery file. A line the file ended in the middle of (!complete)
// cannot match its checksum: when it was cut inside a reply's text, the last of its fields, the
// text before the cut is read.
func parseLine(raw []byte, complete bool) (recoveryRecord, bool) {
	var rec recoveryRecord
	raw = bytes.TrimSuffix(raw, []byte("\n"))
	if len(raw) < 10 || raw[8] != ' ' {
		return rec, false
	}
	js := raw[9:]
	if complete {
		ok := fmt.Sprintf("%08x", crc32.Checksum(js, castagnoli)) == string(raw[:8])
		return rec, ok && json.Unmarshal(js, &rec) == nil && rec.Seq > 0
	}
	// Closing the string the cut was in makes the line whole again; an escape or a character
	// cut in two is dropped first.
	for drop := 0; drop <= 6 && drop < len(js); drop++ {
		rec = recoveryRecord{}
		if json.Unmarshal(append(js[:len(js)-drop:len(js)-drop], `"}`...), &rec) == nil {
			return rec, rec.Kind == "text" && rec.Seq > 0
		}
	}
	return rec, false
}

// appendSynced appends b to the recovery file at path and syncs it. A write cut short (a full
// disk) is truncated away, so a half line never follows.
func appendSynced(path string, b []byte) error {
	f, err := openOwn(path, os.O_WRONLY|os.O_APPEND, true)
	if err != nil {
		return err
	}
	info, statErr := f.Stat()
	if _, err = f.Write(b); err == nil {
		err = f.Sync()
	}
	if err != nil && statErr == nil {
		f.Truncate(info.Size())
	}
	return errors.Join(err, f.Close())
}

// writeRecoveryFile replaces the recovery file at path with lines, removing it when there are
// none; the new file is created as appendSynced creates one, then renamed into place.
func writeRecoveryFile(path string, lines [][]byte) error {
	if len(lines) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*") // O_EXCL, 0600
	if err != nil {
		return err
	}
	for _, l := range lines {
		if _, err = tmp.Write(l); err != nil {
			break
		}
	}
	if err == nil {
		err = tmp.Sync()
	}
	if err = errors.Join(err, tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
