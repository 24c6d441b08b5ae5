package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hibiken/asynq"

	"github.com/puzzled/puzzled/queue"
)

// ServeConfig configures Serve.
type ServeConfig struct {
	Redis       asynq.RedisConnOpt
	Concurrency int // solves at once (default: number of CPUs)
	// InteractiveSlots are solves reserved for the interactive queue, on
	// top of Concurrency: a second asynq server that serves only that
	// queue, so that a designer's job never waits for a bulk job to free
	// a slot (the main server also takes interactive tasks first).
	// 0 reserves none.
	InteractiveSlots int
	// InteractivePoll is how often the reserved slots look for a task when
	// the interactive queue is empty (default queue.InteractivePoll).
	InteractivePoll time.Duration
	Dispatcher      *queue.Dispatcher
	// Queue, if set, brings the notices of interactive submissions to a
	// worker whose bulk searches yield to them (Config.YieldToInteractive).
	Queue  *queue.Client
	Logger *slog.Logger
	// ShutdownTimeout bounds the shutdown once ctx ends (default
	// DefaultShutdownTimeout): past it Serve returns ErrShutdownDeadline
	// with whatever is stuck (a handler waiting on an unreachable Redis,
	// asynq extending a lease) left running, and the process should exit
	// at once. The jobs it still holds are taken over by the other workers
	// once its heartbeat is late, as after a crash.
	ShutdownTimeout time.Duration
}

// DefaultShutdownTimeout is ServeConfig.ShutdownTimeout's default: 9 s for
// the handlers to return (asynq's ShutdownTimeout), and 5 s for the rest.
// The process has then left within 15 s of SIGTERM, exit included (the
// multi-host suite measured 15.0-15.2 s with a 15 s deadline).
const DefaultShutdownTimeout = 14 * time.Second

// ErrShutdownDeadline is Serve's error when its shutdown did not finish
// within ServeConfig.ShutdownTimeout.
var ErrShutdownDeadline = errors.New("worker: shutdown did not finish in time")

// Serve runs the asynq server with w's handler and the dispatcher until ctx
// ends, then shuts down gracefully: no new tasks are taken, running
// searches stop and their jobs are handed back with their last checkpoint.
func Serve(ctx context.Context, w *Worker, cfg ServeConfig) error {
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if !w.register(ctx, logger) {
		return nil // stopped before its first beat: it took nothing
	}
	beatCtx, stopBeats := context.WithCancel(context.WithoutCancel(ctx))
	defer stopBeats()
	w.beat(beatCtx, logger)
	if w.yield != nil && cfg.Queue != nil {
		// Subscribed before the servers start; a worker that cannot
		// subscribe still yields to the interactive jobs it runs.
		if err := cfg.Queue.InteractiveNotices(beatCtx, w.InteractiveSubmitted); err != nil {
			logger.Warn("bulk searches will not yield to interactive jobs submitted elsewhere", slog.Any("error", err))
		}
	}
	set, err := startServerSet(cfg, logger, w)
	if err != nil {
		return err
	}
	dispCtx, stopDispatch := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	if cfg.Dispatcher != nil {
		if cfg.Queue != nil {
			// A new batch's first tasks go out at once; without the
			// notices, at the dispatcher's next round.
			if err := cfg.Queue.BatchNotices(dispCtx, cfg.Dispatcher.Wake); err != nil {
				logger.Warn("new batches wait for the dispatcher's next round", slog.Any("error", err))
			}
		}
		wg.Go(func() { cfg.Dispatcher.Run(dispCtx) })
	}
	<-ctx.Done()
	return shutdown(logger, cfg.ShutdownTimeout, func() {
		set.stop()
		w.Close()
		stopDispatch()
		wg.Wait()
		// Every job was handed back: the worker leaves the table, beats last.
		stopBeats()
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := w.cfg.Store.RemoveWorker(rctx, w.owner.ID); err != nil {
			logger.Warn("worker not removed from the workers table", slog.Any("error", err))
		}
	})
}

// shutdown runs steps, the graceful shutdown, for at most timeout
// (DefaultShutdownTimeout if not positive); past it, it returns
// ErrShutdownDeadline with the steps still running.
func shutdown(logger *slog.Logger, timeout time.Duration, steps func()) error {
	if timeout <= 0 {
		timeout = DefaultShutdownTimeout
	}
	logger.Info("worker shutting down", slog.Duration("deadline", timeout))
	done := make(chan struct{})
	go func() {
		defer close(done)
		steps()
	}()
	select {
	case <-done:
		return nil
	case <-time.After(timeout):
		// The heartbeat stops with the process: the jobs still held here
		// are taken over once it is late.
		logger.Error("shutdown deadline passed; exiting with the jobs still held, for other workers to take over",
			slog.Duration("deadline", timeout))
		return ErrShutdownDeadline
	}
}

// servers are a worker process's asynq servers: the main one, and the one
// of the reserved interactive slots (nil without).
type servers struct {
	main, reserved *asynq.Server
	// active counts the handlers running tasks these servers took.
	active atomic.Int64
	// idle: stopped, and found with no active handler at the reach
	// watch's last look (serverSet.follow).
	idle bool
}

// startServers starts the asynq servers of cfg with handler.
func startServers(cfg ServeConfig, logger *slog.Logger, w *Worker) (*servers, error) {
	s := &servers{main: mainServer(cfg, logger)}
	mux := asynq.NewServeMux()
	mux.Use(s.counted, w.whilePostgresReachable)
	mux.HandleFunc(queue.TypeSolve, w.HandleSolve)
	mux.HandleFunc(queue.TypeGenerate, w.HandleGenerate)
	if err := s.main.Start(mux); err != nil {
		return nil, fmt.Errorf("worker: start asynq server: %w", err)
	}
	if cfg.InteractiveSlots > 0 {
		s.reserved = reservedServer(cfg, logger)
		if err := s.reserved.Start(mux); err != nil {
			s.main.Shutdown()
			return nil, fmt.Errorf("worker: start interactive asynq server: %w", err)
		}
	}
	return s, nil
}

// counted is the middleware that keeps s.active.
func (s *servers) counted(next asynq.Handler) asynq.Handler {
	return asynq.HandlerFunc(func(ctx context.Context, t *asynq.Task) error {
		s.active.Add(1)
		defer s.active.Add(-1)
		return next.ProcessTask(ctx, t)
	})
}

// stopTaking makes the servers take no more tasks; those they took run on.
// It may wait on Redis for a moment: asynq's processor stops between two
// dequeues.
func (s *servers) stopTaking() {
	s.main.Stop()
	if s.reserved != nil {
		s.reserved.Stop()
	}
}

// shutdown waits for the servers' handlers (asynq's ShutdownTimeout at
// most, then their tasks go back to the queue) and closes the servers.
func (s *servers) shutdown() {
	s.main.Shutdown()
	if s.reserved != nil {
		s.reserved.Shutdown()
	}
}

// A worker that cannot reach PostgreSQL takes no tasks (issue 30 item 2):
// every one would wait in its first store write, and asynq has no way to
// pause a server's fetching and resume it. So while the last heartbeat
// written is older than unreachableAfter, the worker stops its servers
// taking tasks (asynq's Stop: the searches they run go on, and their
// leases are still extended), and once a beat is written again it starts
// new servers and retires the stopped ones as soon as their handlers have
// returned. Meanwhile both may run searches, so for the length of the
// searches that ran through the cut the worker can run more than its
// concurrency at once. A task taken in the moment before the worker
// noticed is held and given back (whilePostgresReachable).

// serverSet is a worker's servers over its life: the ones taking tasks
// (nil while PostgreSQL is out of reach) and stopped ones whose handlers
// have not all returned yet.
type serverSet struct {
	cfg    ServeConfig
	logger *slog.Logger
	w      *Worker

	mu        sync.Mutex
	cur       *servers
	draining  []*servers
	retiring  sync.WaitGroup
	stopWatch func()
}

// startServerSet starts the servers of cfg, and a watch of the worker's
// reach of PostgreSQL (follow) that stop ends.
func startServerSet(cfg ServeConfig, logger *slog.Logger, w *Worker) (*serverSet, error) {
	cur, err := startServers(cfg, logger, w)
	if err != nil {
		return nil, err
	}
	ss := &serverSet{cfg: cfg, logger: logger, w: w, cur: cur}
	done, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		tick := time.NewTicker(HeartbeatEvery / 10)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			ss.follow()
		}
	}()
	ss.stopWatch = func() {
		close(done)
		<-ended
	}
	return ss, nil
}

// follow stops taking tasks when PostgreSQL went out of reach, starts
// again when it came back, and retires the stopped servers whose handlers
// have returned.
func (ss *serverSet) follow() {
	reaches := ss.w.reachesPostgres()
	ss.mu.Lock()
	cur := ss.cur
	ss.mu.Unlock()
	switch {
	case !reaches && cur != nil:
		cur.stopTaking()
		ss.mu.Lock()
		ss.cur, ss.draining = nil, append(ss.draining, cur)
		ss.mu.Unlock()
		ss.w.cfg.Logger.Warn("PostgreSQL out of reach: taking no tasks until a heartbeat is written",
			slog.Duration("last_beat_age", ss.w.lastBeatAge().Round(time.Millisecond)))
	case reaches && cur == nil:
		next, err := startServers(ss.cfg, ss.logger, ss.w)
		if err != nil {
			ss.w.cfg.Logger.Warn("PostgreSQL reachable again, but the asynq servers did not start; trying again", slog.Any("error", err))
			return
		}
		ss.mu.Lock()
		ss.cur = next
		ss.mu.Unlock()
		ss.w.cfg.Logger.Info("PostgreSQL reachable again: taking tasks")
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	kept := ss.draining[:0]
	for _, s := range ss.draining {
		// Idle at two looks in a row: a task dequeued just before the
		// stop has had a tick to reach its handler and be counted.
		if !s.idle || s.active.Load() > 0 {
			s.idle = s.active.Load() == 0
			kept = append(kept, s)
			continue
		}
		// Its shutdown can wait on an unreachable Redis: not here.
		ss.retiring.Go(s.shutdown)
	}
	ss.draining = kept
}

// stop ends the watch, takes no new tasks, stops the running searches of
// w (their jobs are handed back) and waits for every server's handlers to
// return.
func (ss *serverSet) stop() {
	ss.stopWatch() // no server is started or retired past this
	ss.mu.Lock()
	all := ss.draining
	if ss.cur != nil {
		all = append(all, ss.cur)
	}
	ss.mu.Unlock()
	for _, s := range all {
		s.stopTaking()
	}
	ss.w.Shutdown()
	for _, s := range all {
		s.shutdown()
	}
	ss.retiring.Wait()
}

// mainServer serves every queue, resumed work first, then interactive,
// then bulk.
func mainServer(cfg ServeConfig, logger *slog.Logger) *asynq.Server {
	return asynq.NewServer(cfg.Redis, asynq.Config{
		Concurrency:    cfg.Concurrency,
		Queues:         queue.Queues,
		StrictPriority: true,
		RetryDelayFunc: retryDelay,
		IsFailure:      isFailure,
		// Retried tasks (given back, held elsewhere) are due again
		// within a second, not asynq's 5 s default.
		DelayedTaskCheckInterval: time.Second,
		ShutdownTimeout:          9 * time.Second,
		// asynq sleeps this long (±50 %) when it finds every queue empty;
		// its 1 s default adds up to 1.5 s to an interactive job on an idle
		// worker and stalls a worker between two pages of the dispatcher.
		TaskCheckInterval: queue.TaskCheckInterval,
		Logger:            asynqLogger{logger.With(slog.String("component", "asynq"))},
		LogLevel:          asynq.WarnLevel,
	})
}

// reservedServer serves the interactive queue only, in the reserved slots.
func reservedServer(cfg ServeConfig, logger *slog.Logger) *asynq.Server {
	poll := cfg.InteractivePoll
	if poll <= 0 {
		poll = queue.InteractivePoll
	}
	return asynq.NewServer(cfg.Redis, asynq.Config{
		Concurrency:     cfg.InteractiveSlots,
		Queues:          map[string]int{queue.Interactive: 1},
		RetryDelayFunc:  retryDelay,
		IsFailure:       isFailure,
		ShutdownTimeout: 10 * time.Second,
		// asynq has no blocking dequeue: an idle server sleeps this
		// long (±50 %) between polls. Short here, for latency; the
		// cost is one small Redis script per poll (see docs/queries.md).
		TaskCheckInterval: poll,
		Logger:            asynqLogger{logger.With(slog.String("component", "asynq-interactive"))},
		LogLevel:          asynq.WarnLevel,
	})
}

// asynqLogger adapts slog to asynq's printf-style Logger interface.
type asynqLogger struct{ l *slog.Logger }

func (a asynqLogger) Debug(args ...any) { a.l.Debug(fmt.Sprint(args...)) }
func (a asynqLogger) Info(args ...any)  { a.l.Info(fmt.Sprint(args...)) }
func (a asynqLogger) Warn(args ...any)  { a.l.Warn(fmt.Sprint(args...)) }
func (a asynqLogger) Error(args ...any) { a.l.Error(fmt.Sprint(args...)) }
func (a asynqLogger) Fatal(args ...any) { a.l.Error(fmt.Sprint(args...)) }
