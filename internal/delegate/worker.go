package delegate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/textcut"
	"github.com/agentls/agentls/internal/worktree"
)

// Worker takes jobs from the queue and runs each as one `agentls run` in
// a fresh clone at the job's commit. What JetStream does is not done
// again here: delivery to one worker, redelivery after AckWait or a Nak,
// the MaxDeliver bound, de-duplication by Nats-Msg-Id.
type Worker struct {
	Queue    *Queue
	Consumer ConsumerSettings
	Policy   Policy
	// Concurrency is how many jobs run at once on this worker.
	Concurrency int
	// Dir holds the jobs' clones, state directories and result files.
	Dir string
	// Exe is the agentls binary that runs a job.
	Exe string
	// Name names the worker in job states (host:pid).
	Name string
	// Settings is the worker's settings file (JSON, as an editor sends
	// them), nil for none: each job's agentls run gets it, less
	// tools.allow (the job's narrowed list comes as --allow) and less an
	// API key (which goes in the environment, where no command sees it).
	Settings []byte
	Log      *zap.Logger
}

// Run consumes jobs until ctx ends. A job running then is cancelled and
// given back to the queue (Nak), to be redelivered.
func (w *Worker) Run(ctx context.Context) error {
	if w.Concurrency < 1 {
		w.Concurrency = 1
	}
	if w.Log == nil {
		w.Log = zap.NewNop()
	}
	cs := w.Consumer
	if cs.AckWait <= 0 {
		cs.AckWait = DefaultConsumer.AckWait
	}
	if cs.MaxDeliver <= 0 {
		cs.MaxDeliver = DefaultConsumer.MaxDeliver
	}
	if cs.MaxAckPending <= 0 {
		cs.MaxAckPending = DefaultConsumer.MaxAckPending
	}
	w.Consumer = cs
	cons, err := w.Queue.JS.CreateOrUpdateConsumer(ctx, JobsStream, jetstream.ConsumerConfig{
		Durable:       Consumer,
		Description:   "agentls workers",
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       cs.AckWait,
		MaxDeliver:    cs.MaxDeliver,
		MaxAckPending: cs.MaxAckPending,
		FilterSubject: JobsSubject + ".>",
	})
	if err != nil {
		return fmt.Errorf("consumer %s: %w", Consumer, err)
	}
	// A job whose worker died on every delivery is not delivered again;
	// JetStream says so in an advisory, and one worker (a queue group)
	// records the job as failed.
	sub, err := w.Queue.NC.QueueSubscribe("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES."+JobsStream+"."+Consumer, Consumer,
		func(m *nats.Msg) {
			defer w.recover("the max-deliveries advisory")
			w.exhausted(context.WithoutCancel(ctx), m.Data)
		})
	if err != nil {
		return err
	}
	defer sub.Unsubscribe()
	if err := os.MkdirAll(filepath.Join(w.Dir, "jobs"), 0o700); err != nil {
		return err
	}
	w.Log.Info("worker started", zap.String("name", w.Name), zap.Int("concurrency", w.Concurrency), zap.Duration("ackWait", cs.AckWait), zap.Int("maxDeliver", cs.MaxDeliver))
	var wg sync.WaitGroup
	for range w.Concurrency {
		wg.Go(func() {
			defer w.recover("a job slot")
			w.slot(ctx, cons)
		})
	}
	wg.Wait()
	return nil
}

func (w *Worker) recover(what string) {
	if r := recover(); r != nil {
		w.Log.Error("panic in "+what, zap.Any("panic", r), zap.ByteString("stack", debug.Stack()))
	}
}

// slot pulls one job at a time and runs it.
func (w *Worker) slot(ctx context.Context, cons jetstream.Consumer) {
	for ctx.Err() == nil {
		fctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		msg, err := cons.Next(jetstream.FetchContext(fctx))
		cancel()
		if err != nil {
			if ctx.Err() == nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, nats.ErrTimeout) {
				w.Log.Warn("fetch", zap.Error(err))
				select {
				case <-ctx.Done():
				case <-time.After(time.Second):
				}
			}
			continue
		}
		func() {
			// A panic ends this job's handling, not the slot; the job
			// comes back after AckWait.
			defer w.recover("a job")
			w.handle(ctx, cons, msg)
		}()
	}
}

// settings are the consumer's AckWait and MaxDeliver as the server has
// them now (another worker may have set them), else this worker's.
func (w *Worker) settings(ctx context.Context, cons jetstream.Consumer) (time.Duration, int) {
	ackWait, maxDeliver := w.Consumer.AckWait, w.Consumer.MaxDeliver
	if info, err := cons.Info(ctx); err == nil {
		if info.Config.AckWait > 0 {
			ackWait = info.Config.AckWait
		}
		if info.Config.MaxDeliver > 0 {
			maxDeliver = info.Config.MaxDeliver
		}
	}
	return ackWait, maxDeliver
}

// handle runs one delivery of a job, and acks, naks or terms it.
func (w *Worker) handle(ctx context.Context, cons jetstream.Consumer, msg jetstream.Msg) {
	bg := context.WithoutCancel(ctx)
	md, err := msg.Metadata()
	if err != nil {
		_ = msg.Term()
		return
	}
	job, err := ParseJob(msg.Data())
	if err != nil {
		// Bad input is not retried.
		w.Log.Warn("bad job", zap.Error(err))
		if ValidID(job.ID) {
			w.publish(bg, Status{ID: job.ID, State: StateFailed, Reason: err.Error(), Worker: w.Name, Attempt: int(md.NumDelivered)})
		}
		_ = msg.TermWithReason(err.Error())
		return
	}
	log := w.Log.With(zap.String("job", job.ID), zap.Uint64("attempt", md.NumDelivered))
	// Idempotent by job id: a job whose end is recorded (its worker died
	// between the result and the ack) is not run again.
	if st, err := LastStatus(bg, w.Queue, job.ID); err == nil && st.Final() {
		log.Info("job already ended; acking the redelivery", zap.String("state", st.State))
		_ = msg.Ack()
		return
	}
	allow, maxSteps, err := w.Policy.Narrow(job)
	if err != nil {
		w.publish(bg, status(job, StateFailed, w.Name, md, func(s *Status) { s.Reason = err.Error() }))
		_ = msg.TermWithReason(err.Error())
		return
	}
	w.publish(bg, status(job, StateRunning, w.Name, md, nil))
	ackWait, maxDeliver := w.settings(bg, cons)

	// In progress while it runs: JetStream redelivers it only if this
	// worker stops saying so (it died).
	jctx, stop := context.WithCancel(ctx)
	defer stop()
	var keep sync.WaitGroup
	keep.Go(func() {
		defer w.recover("in-progress acks")
		t := time.NewTicker(max(ackWait/3, 100*time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-jctx.Done():
				return
			case <-t.C:
				_ = msg.InProgress()
			}
		}
	})
	out, runErr := w.run(jctx, job, allow, maxSteps, log)
	stop()
	keep.Wait()
	// Everything of the attempt is in out now (or lost with it); the next
	// attempt starts from a fresh clone anyway.
	os.RemoveAll(w.jobDir(job.ID))

	switch {
	case ctx.Err() != nil:
		// The worker is stopping: the job goes back to the queue.
		log.Info("stopping: job given back")
		_ = msg.Nak()
		return
	case runErr != nil:
		if int(md.NumDelivered) >= maxDeliver {
			reason := fmt.Sprintf("attempt %d of %d: %v", md.NumDelivered, maxDeliver, runErr)
			w.publish(bg, status(job, StateFailed, w.Name, md, func(s *Status) { s.Reason = reason }))
			_ = msg.TermWithReason(reason)
			return
		}
		log.Warn("job failed to run; redelivering", zap.Error(runErr))
		_ = msg.NakWithDelay(time.Second)
		return
	}
	objects, err := w.store(bg, job, out)
	if err != nil {
		log.Warn("storing the result", zap.Error(err))
		_ = msg.NakWithDelay(time.Second)
		return
	}
	res := out.Result
	w.publish(bg, status(job, StateDone, w.Name, md, func(s *Status) { s.Exit, s.Result, s.Objects = out.Exit, &res, objects }))
	if err := msg.DoubleAck(bg); err != nil {
		log.Warn("ack", zap.Error(err))
	}
	log.Info("job done", zap.String("status", res.Status), zap.Int("exit", out.Exit))
}

func status(j Job, state, worker string, md *jetstream.MsgMetadata, more func(*Status)) Status {
	s := Status{ID: j.ID, State: state, Repo: j.Repo, Commit: j.Commit, Task: j.Task, Worker: worker, Attempt: int(md.NumDelivered)}
	if more != nil {
		more(&s)
	}
	return s
}

func (w *Worker) jobDir(id string) string { return filepath.Join(w.Dir, "jobs", id) }

// run clones the repository at the job's commit and runs the task there;
// everything of the job but the clone (its state directory, the result,
// the events) lives beside the clone, not in it.
func (w *Worker) run(ctx context.Context, job Job, allow []string, maxSteps int, log *zap.Logger) (*RunResult, error) {
	dir := w.jobDir(job.ID)
	// A delivery after a crash starts over: what the last attempt left is
	// removed.
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "state"), 0o700); err != nil {
		return nil, err
	}
	checkout := filepath.Join(dir, "checkout")
	if err := worktree.Clone(ctx, dir, job.Repo, checkout); err != nil {
		return nil, fmt.Errorf("clone %s: %w", job.Repo, err)
	}
	if _, err := worktree.GitVerbose(ctx, checkout, "checkout", "--quiet", "--detach", job.Commit); err != nil {
		return nil, fmt.Errorf("check out %s: %w", job.Commit, err)
	}
	resultPath := filepath.Join(dir, "result.json")
	args := []string{"run", "--workspace", checkout, "--json", "--result", resultPath, "--approval", "never"}
	var key string
	if w.Settings != nil {
		data, k, err := jobSettings(w.Settings)
		if err != nil {
			return nil, err
		}
		key = k
		sp := filepath.Join(dir, "settings.json")
		if err := os.WriteFile(sp, data, 0o600); err != nil {
			return nil, err
		}
		args = append(args, "--settings", sp)
	}
	if maxSteps > 0 {
		args = append(args, "--max-steps", fmt.Sprint(maxSteps))
	}
	for _, a := range allow {
		args = append(args, "--allow", a)
	}
	args = append(args, "--", job.Task)
	events, err := os.Create(filepath.Join(dir, "events.jsonl"))
	if err != nil {
		return nil, err
	}
	defer events.Close()
	// The job's agentls runs as a process of its own: it needs the model's
	// API key, which internal/proc keeps from the processes it starts (it
	// runs only what the model causes), and it sandboxes the task's own
	// commands itself. It dies with the worker (Pdeathsig), and SIGTERM
	// ends it cleanly (exit 130, nothing half-written).
	cmd := exec.Command(w.Exe, args...)
	cmd.Dir = checkout
	cmd.Env = childEnv(filepath.Join(dir, "state"))
	if key != "" {
		cmd.Env = append(cmd.Env, "AGENTLS_API_KEY="+key)
	}
	cmd.Stdin = nil
	cmd.Stdout = events
	cmd.Stderr = events
	cmd.SysProcAttr = jobProcAttr()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() {
		defer w.recover("waiting for a job's agentls run")
		done <- cmd.Wait()
	}()
	select {
	case err = <-done:
	case <-ctx.Done():
		stopGroup(cmd.Process, false)
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			stopGroup(cmd.Process, true)
			err = <-done
		}
		return nil, ctx.Err()
	}
	b, rerr := os.ReadFile(resultPath)
	if rerr != nil {
		return nil, fmt.Errorf("agentls run ended (%v) without a result: %s", err, tail(filepath.Join(dir, "events.jsonl")))
	}
	var out RunResult
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("agentls run's result: %w", err)
	}
	if out.Exit == 2 {
		return nil, fmt.Errorf("agentls run refused the job: %s", tail(filepath.Join(dir, "events.jsonl")))
	}
	return &out, nil
}

// childEnv is the worker's environment for a job's agentls: its own state
// directory, and nothing of the NATS connection.
func childEnv(state string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "AGENTLS_NATS_") || name == "NATS_URL" || name == "XDG_STATE_HOME" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "XDG_STATE_HOME="+state)
}

// jobSettings is the worker's settings for a job's agentls run: without
// tools.allow, which the job may have narrowed (it comes as --allow), and
// without llm.apiKey, returned apart to go in the run's environment.
func jobSettings(data []byte) ([]byte, string, error) {
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, "", fmt.Errorf("worker settings: %w", err)
	}
	var key string
	var strip func(m map[string]any)
	strip = func(m map[string]any) {
		delete(m, "tools.allow")
		if k, ok := m["llm.apiKey"].(string); ok {
			key = k
		}
		delete(m, "llm.apiKey")
		if t, ok := m["tools"].(map[string]any); ok {
			delete(t, "allow")
		}
		if l, ok := m["llm"].(map[string]any); ok {
			if k, ok := l["apiKey"].(string); ok {
				key = k
			}
			delete(l, "apiKey")
		}
		if a, ok := m["agentls"].(map[string]any); ok {
			strip(a)
		}
	}
	strip(m)
	out, err := json.Marshal(m)
	return out, key, err
}

// tail is the end of the file at path, at most 2000 bytes, cut on a
// character boundary: it goes in a failed job's reason.
func tail(path string) string {
	b, _ := os.ReadFile(path)
	s := strings.TrimSpace(string(b))
	if len(s) > 2000 {
		s = "…" + s[textcut.Ceil(s, len(s)-2000):]
	}
	return s
}

// store puts the result in the object store: the result without its large
// parts, and those as objects of their own.
func (w *Worker) store(ctx context.Context, job Job, out *RunResult) ([]string, error) {
	put := func(name string, data []byte) error {
		_, err := w.Queue.Obj.PutBytes(ctx, job.ID+"/"+name, data)
		return err
	}
	var names []string
	add := func(name string, data []byte) error {
		names = append(names, job.ID+"/"+name)
		return put(name, data)
	}
	if err := add("patch", []byte(out.Patch)); err != nil {
		return nil, err
	}
	if err := add("transcript.md", []byte(out.Transcript)); err != nil {
		return nil, err
	}
	if err := add("events.jsonl", []byte(out.Events)); err != nil {
		return nil, err
	}
	if out.Export != nil {
		b, err := json.Marshal(out.Export)
		if err != nil {
			return nil, err
		}
		if err := add("session.json", b); err != nil {
			return nil, err
		}
	}
	brief := *out
	brief.Patch, brief.Transcript, brief.Events, brief.Export = "", "", "", nil
	b, err := json.Marshal(struct {
		Job Job `json:"job"`
		RunResult
	}{job, brief})
	if err != nil {
		return nil, err
	}
	if err := add("result.json", b); err != nil {
		return nil, err
	}
	return names, nil
}

// publish records a job's state on its result subject. The final state
// carries a message id of its own, so a second end of one job is dropped
// by the stream.
func (w *Worker) publish(ctx context.Context, s Status) {
	if err := PublishStatus(ctx, w.Queue, s); err != nil {
		w.Log.Warn("publish state", zap.String("job", s.ID), zap.String("state", s.State), zap.Error(err))
	}
}

// exhausted records as failed the job of a max-deliveries advisory: every
// delivery of it ended with its worker gone.
func (w *Worker) exhausted(ctx context.Context, data []byte) {
	var adv struct {
		StreamSeq  uint64 `json:"stream_seq"`
		Deliveries int    `json:"deliveries"`
	}
	if err := json.Unmarshal(data, &adv); err != nil || adv.StreamSeq == 0 {
		return
	}
	stream, err := w.Queue.JS.Stream(ctx, JobsStream)
	if err != nil {
		return
	}
	raw, err := stream.GetMsg(ctx, adv.StreamSeq)
	if err != nil {
		return
	}
	job, _ := ParseJob(raw.Data)
	if !ValidID(job.ID) {
		return
	}
	if st, err := LastStatus(ctx, w.Queue, job.ID); err == nil && st.Final() {
		_ = stream.DeleteMsg(ctx, adv.StreamSeq)
		return
	}
	reason := fmt.Sprintf("delivered %d times and never finished (its worker stopped or died each time)", adv.Deliveries)
	w.publish(ctx, Status{ID: job.ID, State: StateFailed, Repo: job.Repo, Commit: job.Commit, Task: job.Task, Worker: w.Name, Attempt: adv.Deliveries, Reason: reason})
	_ = stream.DeleteMsg(ctx, adv.StreamSeq)
}
