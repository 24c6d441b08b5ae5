package worker

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
)

func TestWriteMergerMergesConcurrentCallsAndAnswersEachInOrder(t *testing.T) {
	t.Parallel()
	// In a synctest bubble, synctest.Wait returns once every goroutine of
	// the bubble is blocked: no sleep stands in for synchronisation.
	synctest.Test(t, batcherMergesConcurrentCalls)
}

func batcherMergesConcurrentCalls(t *testing.T) {
	held, release := make(chan struct{}), make(chan struct{})
	var sizes []int // only the run goroutine touches it until wg.Wait
	b := newWriteMerger(100, func(_ context.Context, reqs []int) ([]int, error) {
		if len(sizes) == 0 {
			close(held)
			<-release // hold the first flush so that the other calls queue up
		}
		sizes = append(sizes, len(reqs))
		out := make([]int, len(reqs))
		for i, r := range reqs {
			out[i] = r * 10
		}
		return out, nil
	})
	life, stop := context.WithCancel(context.Background())
	defer stop()
	go b.run(life)

	call := func(i int) {
		if got, err := b.do(t.Context(), i); err != nil || got != 10*i {
			t.Errorf("do(%d) = %d, %v", i, got, err)
		}
	}
	var wg sync.WaitGroup
	wg.Go(func() { call(1) })
	<-held
	var launched sync.WaitGroup
	for i := 2; i <= 21; i++ {
		launched.Add(1)
		wg.Go(func() { launched.Done(); call(i) })
	}
	launched.Wait()
	synctest.Wait() // every caller is blocked handing in its call
	close(release)
	wg.Wait()
	total := 0
	for _, n := range sizes {
		total += n
	}
	// Typically [1 20]; a writeMerger that does not merge would flush 21 times.
	if total != 21 || len(sizes) > 10 {
		t.Fatalf("flush sizes %v: want 21 calls merged into a few flushes", sizes)
	}
}

func TestWriteMergerErrorReachesEveryCaller(t *testing.T) {
	t.Parallel()
	boom := errors.New("database down")
	b := newWriteMerger(8, func(context.Context, []int) ([]int, error) { return nil, boom })
	life, stop := context.WithCancel(context.Background())
	defer stop()
	go b.run(life)
	var wg sync.WaitGroup
	for i := range 5 {
		wg.Go(func() {
			if _, err := b.do(t.Context(), i); !errors.Is(err, boom) {
				t.Errorf("do(%d) err = %v", i, err)
			}
		})
	}
	wg.Wait()
}

func TestWriteMergerCallerGivesUpWhenStopped(t *testing.T) {
	t.Parallel()
	b := newWriteMerger(8, func(_ context.Context, r []int) ([]int, error) { return r, nil })
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // nothing runs the writeMerger, and the caller's ctx is done
	if _, err := b.do(ctx, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}
