package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"

	"github.com/puzzled/puzzled/solver/sheep"
)

// runDeal writes N deals of one sheep layout as NDJSON, ready for
// `puzzlectl submit`: the layout's tiles with the types dealt anew.
func runDeal(ctx context.Context, e *env, args []string) int {
	fs := e.flagSet("deal", "[flags] LAYOUT.json|-  or  deal --generate [flags]",
		"Writes --count deals of a sheep layout as NDJSON levels: the layout's tiles (places or covers,\n"+
			"tray) with the types dealt anew at random, each type a multiple of 3 tiles, the layout's type\n"+
			"count unless --types says otherwise. Deal k of seed S is the same on every run.\n"+
			"With --generate the layout is a generated realistic one (stacked layers, two blind piles).")
	count := fs.Int("count", 10, "number of deals")
	seed := fs.Uint64("seed", 1, "random seed of the deals (and of the generated layout)")
	types := fs.Int("types", 0, "number of types to deal (0: the layout's)")
	generate := fs.Bool("generate", false, "deal over a generated realistic layout instead of a file")
	tiles := fs.Int("tiles", 255, "with --generate: tiles of the layout")
	layers := fs.Int("layers", 24, "with --generate: layers of the main area")
	slots := fs.Int("slots", sheep.DefaultSlots, "with --generate: tray size")
	pos, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	want := 1
	if *generate {
		want = 0
	}
	if !wantArgs(fs, pos, want, want) {
		return exitError
	}
	if *count < 0 {
		return e.errorf("deal: --count must not be negative")
	}
	var layout *sheep.Level
	if *generate {
		g, err := sheep.Generate(rand.New(rand.NewPCG(*seed, 0x1a70)), sheep.GenerateOpts{
			Tiles: *tiles, Layers: *layers, Types: max(*types, 14), Slots: *slots})
		if err != nil {
			return e.errorf("deal: %v", err)
		}
		layout = g.Level
	} else {
		data, err := readLayout(pos[0], e.stdin)
		if err != nil {
			return e.errorf("deal: %v", err)
		}
		if layout, err = sheep.Parse(data); err != nil {
			return e.errorf("deal: %s: %v", pos[0], err)
		}
	}
	w := bufio.NewWriter(e.stdout)
	for k := range *count {
		if ctx.Err() != nil {
			fmt.Fprintln(e.stderr, "puzzlectl: deal: interrupted")
			return exitInterrupted
		}
		d, err := sheep.DealNumber(layout, *seed, k, *types)
		if err != nil {
			return e.errorf("deal: %v", err)
		}
		w.Write(d.Canonical())
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		return e.errorf("deal: %v", err)
	}
	return exitOK
}

func readLayout(path string, stdin io.Reader) ([]byte, error) {
	if path == "-" {
		return io.ReadAll(stdin)
	}
	return os.ReadFile(path)
}
