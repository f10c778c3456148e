package delegate

import (
	"context"
	"errors"
	"testing"
)

// A job id that is not a subject token (a wildcard, a dotted name) names
// no job: History must not filter on other jobs' subjects with it. The
// check comes before the queue is used, so no NATS server is needed.
func TestHistoryRefusesWildcardIDs(t *testing.T) {
	for _, id := range []string{"*", ">", "a.b", "a.*", ""} {
		if _, err := History(context.Background(), nil, id); !errors.Is(err, ErrNoJob) {
			t.Errorf("History(%q) = %v, want ErrNoJob", id, err)
		}
	}
}
