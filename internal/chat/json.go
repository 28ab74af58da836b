package chat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// WriteJSON writes v as every JSON output of parley is written: indented, with <, > and &
// left as they are, so that a script reads the text the model wrote, and C1 controls escaped
// (\u009b) as encoding/json escapes C0 ones, so that no control reaches a terminal showing it
// while the string a script decodes stays the same.
func WriteJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(escapeC1(b.Bytes()))
	return err
}

// escapeC1 writes each C1 control (U+0080–U+009F) of js, valid UTF-8 JSON, as a \u escape.
// Those runes are 0xC2 then 0x80–0x9F in UTF-8, and 0xC2 only ever begins a rune.
func escapeC1(js []byte) []byte {
	if !bytes.Contains(js, []byte{0xc2}) {
		return js
	}
	out := make([]byte, 0, len(js)+64)
	for i := 0; i < len(js); i++ {
		if js[i] == 0xc2 && i+1 < len(js) && js[i+1] >= 0x80 && js[i+1] <= 0x9f {
			out = fmt.Appendf(out, `\u%04x`, js[i+1])
			i++
			continue
		}
		out = append(out, js[i])
	}
	return out
}
