package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// A large batch spends most of its PostgreSQL time in two statements: the
// INSERT of its new levels and the INSERT of its jobs (about 2 s each for
// 100,000 levels, every index written row by row). One transaction runs
// them one after the other on one core. CreateBatch therefore writes the
// levels in a transaction of their own, on a second connection, while the
// batch's own transaction writes the jobs: levels are content-addressed
// and immutable, so storing them apart changes nothing anyone can see.
// The order of the commits keeps the promise that a visible job has its
// level: the levels' transaction commits just before the batch's, and
// rolls back when the batch fails before its commit.
//
// The batch's transaction takes ROW EXCLUSIVE on levels before the
// levels' INSERT starts, and holds it to its commit. The retention pass
// (retention.go) deletes a level that no job has under SHARE ROW
// EXCLUSIVE, so it either ends before that INSERT looks for the batch's
// levels (which then inserts again what it deleted) or waits for the
// batch, as it did when one transaction inserted both. Otherwise it could
// delete a level that the levels' transaction found already there, before
// the batch's jobs that need it are visible.

// levelsConnWait is how long CreateBatch waits for a second connection.
// A pool whose connections are all taken (by batches that each wait for a
// second one, say) must not stall a batch: it then writes its levels in
// its own transaction, as before.
const levelsConnWait = 20 * time.Millisecond

// levelsTx writes a batch's new levels in a transaction of its own. Rows
// go in through send while the batch is copied (COPY into a temporary
// table of its own connection); insert writes them into levels; commit
// ends it.
type levelsTx struct {
	tx      pgx.Tx
	release func() // gives the connection back
	rows    chan []any
	copied  chan error    // the COPY's outcome
	quit    chan struct{} // closed when the COPY ended early
	closed  bool          // rows is closed
	// inserted has the outcome of insert; nil before insert is called.
	inserted chan insertedLevels
	result   *insertedLevels
}

// beginLevelsTx starts the levels' transaction on a second connection of
// the pool and its COPY, fed by send. It returns nil when no connection is
// free within levelsConnWait; the caller then writes the levels itself.
func (s *Store) beginLevelsTx(ctx context.Context) (*levelsTx, error) {
	wait, cancel := context.WithTimeout(ctx, levelsConnWait)
	conn, err := s.pool.Acquire(wait)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, nil
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		conn.Release()
		return nil, fmt.Errorf("begin levels: %w", err)
	}
	// The batch's own commit, later, is durable and makes this one
	// durable too: WAL reaches disk in order.
	if _, err := tx.Exec(ctx, `SET LOCAL synchronous_commit = off`); err != nil {
		_ = tx.Rollback(ctx)
		conn.Release()
		return nil, fmt.Errorf("levels: %w", err)
	}
	if _, err := tx.Exec(ctx, `CREATE TEMP TABLE new_levels (hash text, kind text, body jsonb) ON COMMIT DROP`); err != nil {
		_ = tx.Rollback(ctx)
		conn.Release()
		return nil, fmt.Errorf("levels temp table: %w", err)
	}
	l := &levelsTx{tx: tx, release: conn.Release, rows: make(chan []any, 1024), copied: make(chan error, 1), quit: make(chan struct{})}
	go func() {
		_, err := tx.CopyFrom(ctx, pgx.Identifier{"new_levels"}, []string{"hash", "kind", "body"}, pgx.CopyFromFunc(
			func() ([]any, error) {
				row, ok := <-l.rows
				if !ok {
					return nil, nil
				}
				return row, nil
			}))
		if err != nil {
			close(l.quit)
		}
		l.copied <- err
	}()
	return l, nil
}

// send hands one new level to the COPY. false: the COPY has ended (its
// error comes from finishCopy).
func (l *levelsTx) send(hash, kind, body string) bool {
	select {
	case l.rows <- []any{hash, kind, body}:
		return true
	case <-l.quit:
		return false
	}
}

// finishCopy ends the COPY and returns its error.
func (l *levelsTx) finishCopy() error {
	if !l.closed {
		l.closed = true
		close(l.rows)
	}
	if err := <-l.copied; err != nil {
		return fmt.Errorf("copy levels: %w", err)
	}
	return nil
}

// insert starts writing the copied levels into levels, created at
// createdAt (the batch's time: the levels a batch creates are found
// through it, see LevelsQuery), on the levels' own connection, while the
// caller goes on; wait returns how many it inserted.
func (l *levelsTx) insert(ctx context.Context, createdAt time.Time) {
	l.inserted = make(chan insertedLevels, 1)
	go func() {
		n, err := insertLevels(ctx, l.tx, "new_levels", createdAt)
		l.inserted <- insertedLevels{n, err}
	}()
}

type insertedLevels struct {
	n   int
	err error
}

// wait returns the outcome of insert.
func (l *levelsTx) wait() (int, error) {
	if l.result == nil {
		r := <-l.inserted
		l.result = &r
	}
	return l.result.n, l.result.err
}

// insertLevels writes the levels of the temporary table from that are not
// stored yet, in hash order: both indexes of levels are then written
// page after page (a fifth faster than in submission order, measured on
// 100,000 levels), and two batches never lock the same two levels in
// opposite orders.
func insertLevels(ctx context.Context, tx pgx.Tx, from string, createdAt time.Time) (int, error) {
	tag, err := tx.Exec(ctx, `INSERT INTO levels (hash, kind, body, created_at)
		SELECT hash, kind, body, $1 FROM `+from+` WHERE body IS NOT NULL ORDER BY hash
		ON CONFLICT (hash) DO NOTHING`, createdAt)
	if err != nil {
		return 0, fmt.Errorf("insert levels: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

// commit commits the levels' transaction and gives its connection back.
func (l *levelsTx) commit(ctx context.Context) error {
	defer l.release()
	if err := l.tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit levels: %w", err)
	}
	return nil
}

// rollback ends the COPY or the insert if one still runs, rolls back and
// gives the connection back. It does nothing after commit.
func (l *levelsTx) rollback(ctx context.Context) {
	if !l.closed {
		l.closed = true
		close(l.rows)
		<-l.copied
	}
	if l.inserted != nil {
		_, _ = l.wait()
	}
	err := l.tx.Rollback(ctx)
	if !errors.Is(err, pgx.ErrTxClosed) {
		l.release()
	}
}
