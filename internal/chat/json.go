package chat

import (
	"encoding/json"
	"io"
)

// WriteJSON writes v as every JSON output of parley is written: indented, with <, > and &
// left as they are, so that a script reads the text the model wrote.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
