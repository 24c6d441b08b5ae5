package main

import (
	"runtime"
	"sync"
)

// parallelFor calls fn(i) for i in [0, n) on GOMAXPROCS goroutines.
func parallelFor(n int, fn func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(n, 1)) {
		wg.Go(func() {
			for i := range next {
				fn(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
