package agent

import (
	"context"
	"errors"
	"sort"

	"parley/internal/chat"
	"parley/retry"
)

// ListError is why the endpoint's models could not be listed, classified as a run's failure
// would be, with the fix named: whether asking again can help, and when.
type ListError struct {
	Class chat.Classification
}

func (e *ListError) Error() string {
	if e.Class.Message == "" {
		return e.Class.Label
	}
	return e.Class.Label + " — " + e.Class.Message
}

// Models lists the models the endpoint serves (GET /models), sorted by name. A failure is a
// *ListError. A key that could not be resolved fails without a request.
func (c *Client) Models(ctx context.Context) ([]string, error) {
	if c.ep.KeyErr != "" {
		return nil, &ListError{chat.NewClassification(chat.CredentialsUnresolved, c.ep.KeyErr)}
	}
	capt := capture{listing: true}
	list, err := c.api.ListModels(withCapture(ctx, &capt))
	if err != nil {
		f := retry.Failure{Phase: retry.BeforeHeaders, Err: err, Now: c.clock.Now()}
		if capt.status != 0 {
			f.Phase, f.Status, f.Header, f.Body = retry.Status, capt.status, capt.header, capt.body.Bytes()
		}
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			f.Err = ctx.Err()
		}
		cls := c.nameTheFix(c.classify(f), f, capt.url)
		return nil, &ListError{cls}
	}
	names := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		names = append(names, c.redact.String(m.ID))
	}
	sort.Strings(names)
	return names, nil
}
