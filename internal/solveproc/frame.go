package solveproc

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"

	"github.com/puzzled/puzzled/solver"
)

// The parent and a child talk over the child's stdin and stdout in frames:
// a small JSON header, then the blobs it announces (level, checkpoint,
// plan) as raw bytes, so that large bodies are neither escaped nor scanned
// twice. Every length is a big-endian uint32:
//
//	len(header) header count { len(blob) blob }
//
// Parent to child: "solve" (blobs: level, resume) and "cancel". Child to
// parent: "started" (the solve frame was read whole), "checkpoint" (blob:
// the checkpoint) and "done" (blob: the plan).
type header struct {
	Op  string `json:"op"`
	Seq uint64 `json:"seq"` // the solve a frame belongs to

	Request *Request `json:"request,omitempty"` // solve

	// done: the result without its plan, and how the solve failed.
	Result *solver.Result `json:"result,omitempty"`
	Error  string         `json:"error,omitempty"`
	Class  string         `json:"class,omitempty"` // classFinal, classSearch
}

const (
	opSolve      = "solve"
	opCancel     = "cancel"
	opStarted    = "started"
	opCheckpoint = "checkpoint"
	opDone       = "done"

	classFinal  = "final"  // wraps ErrFinal
	classSearch = "search" // any other error of Run
)

// maxFrame bounds every length read, so that a corrupt stream fails
// instead of allocating gigabytes. Levels are limited by the API far below
// it; checkpoints stay near a megabyte.
const maxFrame = 1 << 30

func writeFrame(w *bufio.Writer, h header, blobs ...[]byte) error {
	hb, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("solveproc: encode %s frame: %w", h.Op, err)
	}
	var n [4]byte
	put := func(b []byte) {
		binary.BigEndian.PutUint32(n[:], uint32(len(b)))
		w.Write(n[:])
		w.Write(b)
	}
	put(hb)
	binary.BigEndian.PutUint32(n[:], uint32(len(blobs)))
	w.Write(n[:])
	for _, b := range blobs {
		put(b)
	}
	return w.Flush() // bufio keeps the first write error
}

func readFrame(r *bufio.Reader) (header, [][]byte, error) {
	var h header
	hb, err := readBlob(r)
	if err != nil {
		return h, nil, err
	}
	d := json.NewDecoder(bytes.NewReader(hb))
	d.UseNumber() // details keep their exact integers
	if err := d.Decode(&h); err != nil {
		return h, nil, fmt.Errorf("solveproc: bad frame header: %w", err)
	}
	count, err := readLen(r)
	if err != nil {
		return h, nil, unexpected(err)
	}
	if count > 16 {
		return h, nil, fmt.Errorf("solveproc: bad frame: %d blobs", count)
	}
	blobs := make([][]byte, count)
	for i := range blobs {
		if blobs[i], err = readBlob(r); err != nil {
			return h, nil, unexpected(err)
		}
	}
	return h, blobs, nil
}

func readLen(r io.Reader) (int, error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return 0, err
	}
	v := binary.BigEndian.Uint32(n[:])
	if v > maxFrame {
		return 0, fmt.Errorf("solveproc: bad frame: length %d", v)
	}
	return int(v), nil
}

func readBlob(r io.Reader) ([]byte, error) {
	n, err := readLen(r)
	if err != nil {
		return nil, err
	}
	// Grown as the bytes come, so that a corrupt length fails at the end
	// of the stream instead of allocating it first.
	b, err := io.ReadAll(io.LimitReader(r, int64(n)))
	if err == nil && len(b) < n {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return nil, fmt.Errorf("solveproc: short frame: %w", err)
	}
	return b, nil
}

// unexpected turns a clean EOF inside a frame into io.ErrUnexpectedEOF.
func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// blob returns blobs[i], or nil when the frame has fewer.
func blob(blobs [][]byte, i int) []byte {
	if i < len(blobs) {
		return blobs[i]
	}
	return nil
}
