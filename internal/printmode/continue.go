package printmode

import (
	"errors"
	"fmt"

	"parley/internal/chat"
)

// continueLast starts a new version of the session's last reply that goes on from where it
// was cut (history.Continue).
func (p *printer) continueLast() error {
	msgs, err := p.o.DB.Transcript(p.o.Session.ID)
	if err != nil {
		return fmt.Errorf("cannot read the session: %v", err)
	}
	last := len(msgs) - 1
	for last >= 0 && msgs[last].Role != chat.RoleAssistant {
		last--
	}
	if last < 0 || !msgs[last].Continuable() {
		return errors.New("the session's last reply was not cut: nothing to continue (parley -c -p PROMPT asks more)")
	}
	rcpt, err := p.o.DB.Continue(msgs[last].ID, p.client.Endpoint().Model, false)
	if err != nil {
		return fmt.Errorf("cannot continue the reply: %v", err)
	}
	p.rcpt = rcpt
	return nil
}
