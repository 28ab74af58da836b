package agent

import (
	"context"
	"errors"
	"fmt"
	"sort"
)

// Models lists the models the endpoint serves (GET /models), sorted by name. A key that
// could not be resolved is an error: the list is not asked for without it.
func (c *Client) Models(ctx context.Context) ([]string, error) {
	if c.ep.KeyErr != "" {
		return nil, errors.New(c.ep.KeyErr)
	}
	list, err := c.api.ListModels(ctx)
	if err != nil {
		return nil, fmt.Errorf("GET %s/models: %w", c.where(), err)
	}
	names := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		names = append(names, m.ID)
	}
	sort.Strings(names)
	return names, nil
}
