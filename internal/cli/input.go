package cli

import (
	"context"
	"fmt"
	"io"
)

// maxStdin bounds what parley reads of stdin into memory, whatever a limit then says of it.
const maxStdin = 256 << 20

// readAll reads r to its end, or until ctx ends: ctrl+c stops parley even while a pipe that
// is never closed holds it.
func readAll(ctx context.Context, r io.Reader) ([]byte, error) {
	type read struct {
		b   []byte
		err error
	}
	done := make(chan read, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(r, maxStdin+1))
		if err == nil && len(b) > maxStdin {
			err = fmt.Errorf("it holds more than %d MiB; pipe less", maxStdin>>20)
		}
		done <- read{b, err}
	}()
	select {
	case r := <-done:
		return r.b, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
