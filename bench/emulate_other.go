//go:build !linux

package bench

import (
	"context"
	"fmt"
)

func newCluster(ctx context.Context, cfg *Config, nodes int) (*cluster, error) {
	return nil, fmt.Errorf("cgroups and network namespaces are Linux features: %w", ErrNotSupported)
}
