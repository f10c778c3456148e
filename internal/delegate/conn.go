package delegate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentls/agentls/internal/config"
)

// The names of what agentls keeps in JetStream (docs/multi-machine.md).
const (
	JobsStream    = "AGENTLS_JOBS"    // work queue: agentls.jobs.<id>
	JobsSubject   = "agentls.jobs"    // .<id>
	ResultsStream = "AGENTLS_RESULTS" // states: agentls.results.<id>
	ResultsSubj   = "agentls.results" // .<id>
	Bucket        = "AGENTLS_RESULTS" // object store: <id>/result.json, patch, …
	Consumer      = "agentls-workers" // the durable pull consumer all workers share
)

// ConsumerSettings are the durable consumer's settings, which the workers
// set (the last worker to start wins).
type ConsumerSettings struct {
	AckWait       time.Duration // a job not acked or kept in progress for this long is redelivered
	MaxDeliver    int           // deliveries before a job ends as failed
	MaxAckPending int           // jobs running at once across all workers
}

// DefaultConsumer is what `agentls worker` uses without flags.
var DefaultConsumer = ConsumerSettings{AckWait: 2 * time.Minute, MaxDeliver: 3, MaxAckPending: 64}

// Queue is a connection to the jobs and results of one NATS account.
type Queue struct {
	NC  *nats.Conn
	JS  jetstream.JetStream
	Obj jetstream.ObjectStore
}

// ErrNoServer is wrapped when no NATS server is configured.
var ErrNoServer = errors.New("no NATS server configured: set delegate.url in your settings or AGENTLS_NATS_URL")

// Connect opens the connection the settings describe and makes sure the
// streams and the object store exist (created when missing; an existing
// one is left as the operator set it). The
// settings come from the user's settings and environment, never from a
// job or the workspace file (config.Delegate).
func Connect(ctx context.Context, d config.Delegate, name string) (*Queue, error) {
	if d.URL == "" {
		return nil, ErrNoServer
	}
	opts := []nats.Option{nats.Name(name), nats.MaxReconnects(-1), nats.Timeout(10 * time.Second)}
	if d.Credentials != "" {
		opts = append(opts, nats.UserCredentials(d.Credentials))
	}
	if d.NKey != "" {
		o, err := nats.NkeyOptionFromSeed(d.NKey)
		if err != nil {
			return nil, fmt.Errorf("delegate.nkey: %w", err)
		}
		opts = append(opts, o)
	}
	if d.TLSCA != "" {
		opts = append(opts, nats.RootCAs(d.TLSCA))
	}
	if d.TLSCert != "" || d.TLSKey != "" {
		opts = append(opts, nats.ClientCert(d.TLSCert, d.TLSKey))
	}
	nc, err := nats.Connect(d.URL, opts...)
	if err != nil {
		return nil, fmt.Errorf("connect to NATS at %s: %w", redactURL(d.URL), err)
	}
	q, err := open(ctx, nc)
	if err != nil {
		nc.Close()
		return nil, err
	}
	return q, nil
}

func open(ctx context.Context, nc *nats.Conn) (*Queue, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	if err := ensureStream(ctx, js, jetstream.StreamConfig{
		Name:        JobsStream,
		Description: "agentls delegated jobs (work queue)",
		Subjects:    []string{JobsSubject + ".>"},
		Retention:   jetstream.WorkQueuePolicy,
		Storage:     jetstream.FileStorage,
		Duplicates:  24 * time.Hour, // Nats-Msg-Id = job id: a job published twice runs once
	}); err != nil {
		return nil, fmt.Errorf("stream %s: %w", JobsStream, err)
	}
	if err := ensureStream(ctx, js, jetstream.StreamConfig{
		Name:        ResultsStream,
		Description: "agentls delegated jobs' states",
		Subjects:    []string{ResultsSubj + ".>"},
		Retention:   jetstream.LimitsPolicy,
		Storage:     jetstream.FileStorage,
		MaxAge:      30 * 24 * time.Hour,
		Duplicates:  24 * time.Hour,
	}); err != nil {
		return nil, fmt.Errorf("stream %s: %w", ResultsStream, err)
	}
	obj, err := js.ObjectStore(ctx, Bucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		obj, err = js.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{
			Bucket:      Bucket,
			Description: "agentls delegated jobs' results",
			Storage:     jetstream.FileStorage,
			TTL:         30 * 24 * time.Hour,
		})
	}
	if err != nil {
		return nil, fmt.Errorf("object store %s: %w", Bucket, err)
	}
	return &Queue{NC: nc, JS: js, Obj: obj}, nil
}

// ensureStream creates the stream when it is missing and leaves one that
// exists as it is: an operator's changes (replicas, limits, placement)
// stay. Two creations at once agree, since the configurations are equal.
func ensureStream(ctx context.Context, js jetstream.JetStream, cfg jetstream.StreamConfig) error {
	_, err := js.Stream(ctx, cfg.Name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		_, err = js.CreateStream(ctx, cfg)
		if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			err = nil
		}
	}
	return err
}

// Close drains the connection: what was published is sent.
func (q *Queue) Close() {
	if q != nil && q.NC != nil {
		_ = q.NC.Drain()
	}
}

// redactURL leaves a user and password out of a URL shown to people, in
// each URL of a comma-separated list (NATS takes several servers).
func redactURL(u string) string {
	parts := strings.Split(u, ",")
	for i, p := range parts {
		if at := strings.LastIndexByte(p, '@'); at >= 0 {
			start := strings.Index(p, "://")
			if start < 0 || start > at {
				start = 0
			} else {
				start += len("://")
			}
			parts[i] = p[:start] + "…" + p[at:]
		}
	}
	return strings.Join(parts, ",")
}
