package twoends

// The oracles, written as plainly as possible.

// minimax is the exhaustive game tree: the mover's best total minus the
// opponent's on a[i..j]. Exponential; for tiny inputs only.
func minimax(a []int64) int64 {
	if len(a) == 0 {
		return 0
	}
	left := a[0] - minimax(a[1:])
	right := a[len(a)-1] - minimax(a[:len(a)-1])
	return max(left, right)
}

// dpTable is the textbook O(n²) interval DP: t[i][j] is the mover's best
// total minus the opponent's on a[i..j].
func dpTable(a []int64) [][]int64 {
	n := len(a)
	t := make([][]int64, n)
	for i := range t {
		t[i] = make([]int64, n)
		t[i][i] = a[i]
	}
	for length := 2; length <= n; length++ {
		for i := 0; i+length-1 < n; i++ {
			j := i + length - 1
			t[i][j] = max(a[i]-t[i+1][j], a[j]-t[i][j-1])
		}
	}
	return t
}

// dpLine replays the canonical line from the table: L whenever L is optimal.
func dpLine(a []int64, t [][]int64) string {
	line := make([]byte, 0, len(a))
	i, j := 0, len(a)-1
	for i <= j {
		if i == j || a[i]-t[i+1][j] == t[i][j] {
			line = append(line, 'L')
			i++
		} else {
			line = append(line, 'R')
			j--
		}
	}
	return string(line)
}
